import { createTestDatabase, type TestDatabase } from '../testing';
import { OperatorEntity } from './operator.entity';
import {
  bumpTokenVersion,
  findOperatorByUsername,
  hasEnabledAdmin,
  isUniqueViolation,
} from './operators.queries';

describe('operators table', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  const insert = (username: string, role: 'admin' | 'operator' = 'operator', disabled = false) =>
    db.dataSource
      .getRepository(OperatorEntity)
      .insert({ username, displayName: username, role, passwordHash: 'x', disabled });

  it('finds usernames ignoring case and refuses a second spelling of the same name', async () => {
    await insert('Alice');
    expect((await findOperatorByUsername(db.dataSource, 'aLICE'))?.username).toBe('Alice');
    const err = await insert('ALICE').catch((e: unknown) => e);
    expect(isUniqueViolation(err, 'uq_operators_username_lower')).toBe(true);
  });

  it('refuses a role outside admin|operator', async () => {
    await expect(insert('mallory', 'root' as 'admin')).rejects.toThrow(/ck_operators_role/);
  });

  it('counts only enabled admins', async () => {
    expect(await hasEnabledAdmin(db.dataSource)).toBe(false);
    await insert('root1', 'admin', true);
    expect(await hasEnabledAdmin(db.dataSource)).toBe(false);
    await insert('root2', 'admin');
    expect(await hasEnabledAdmin(db.dataSource)).toBe(true);
  });

  it('owns threads: a thread needs an existing operator, and deleting the operator deletes their threads', async () => {
    const { identifiers } = await insert('owner-1');
    const ownerId = identifiers[0]!['id'] as string;
    await db.dataSource.query(`INSERT INTO chat_sessions (owner_id, title) VALUES ($1, 't')`, [ownerId]);
    await expect(
      db.dataSource.query(`INSERT INTO chat_sessions (owner_id, title) VALUES (gen_random_uuid(), 't')`),
    ).rejects.toThrow(/fk_chat_sessions_owner/);
    await db.dataSource.getRepository(OperatorEntity).delete({ id: ownerId });
    const [{ n }] = await db.dataSource.query(
      `SELECT count(*)::int AS n FROM chat_sessions WHERE owner_id = $1`,
      [ownerId],
    );
    expect(n).toBe(0);
  });

  it('bumps the token version by one per call, concurrent calls included; null for an unknown operator', async () => {
    const { identifiers } = await insert('versioned');
    const id = identifiers[0]!['id'] as string;
    const versions = await Promise.all(Array.from({ length: 5 }, () => bumpTokenVersion(db.dataSource, id)));
    expect([...versions].sort()).toEqual([1, 2, 3, 4, 5]);
    expect((await db.dataSource.getRepository(OperatorEntity).findOneByOrFail({ id })).tokenVersion).toBe(5);
    expect(await bumpTokenVersion(db.dataSource, '00000000-0000-4000-8000-000000000000')).toBeNull();
  });
});
