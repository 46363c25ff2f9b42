import { randomUUID } from 'node:crypto';
import type { WebhookPayload } from '@corpus-chat/contracts';
import { ChatRepository } from '../chat/chat.repository';
import { createTestDatabase, insertTestOperator, storeTestTurn, type TestDatabase } from '../testing';
import { WebhooksRepository } from './webhooks.queries';

describe('webhook deliveries: who receives an ended turn (real Postgres)', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  /** An ended turn of `ownerId`'s new thread, as the worker's payload describes it. */
  const endedTurn = async (ownerId: string): Promise<WebhookPayload> => {
    const chat = await new ChatRepository(db.dataSource).createChat(ownerId, 'private thread');
    const turnId = randomUUID();
    await storeTestTurn(db.dataSource, ownerId, chat.id, { turnId, content: 'secret question' });
    return {
      type: 'turn.done',
      timestamp: new Date().toISOString(),
      data: { threadId: chat.id, threadTitle: chat.title, turnId, text: 'answer', link: '' },
    };
  };

  /** The endpoints that got a delivery of `payload`'s turn. */
  const receivers = async (payload: WebhookPayload): Promise<string[]> =>
    (
      await db.dataSource.query(`SELECT endpoint_id FROM webhook_deliveries WHERE turn_id = $1`, [
        payload.data.turnId,
      ])
    ).map((r: { endpoint_id: string }) => r.endpoint_id);

  it('an all-operators endpoint gets turns only while its owner is an enabled admin', async () => {
    const admin = await insertTestOperator(db.dataSource, { role: 'admin' });
    const bob = await insertTestOperator(db.dataSource);
    const endpoint = await new WebhooksRepository(db.dataSource).insertWebhookEndpoint(
      {
        operatorId: admin.id,
        url: 'https://hooks.example.org/all',
        events: ['turn.done'],
        allOperators: true,
        secret: 'whsec_test',
      },
      10,
      { id: admin.id, username: admin.username },
    );

    const whileAdmin = await endedTurn(bob.id);
    await new WebhooksRepository(db.dataSource).insertTurnDeliveries(bob.id, whileAdmin);
    expect(await receivers(whileAdmin)).toEqual([endpoint!.id]);

    await db.dataSource.query(`UPDATE operators SET role = 'operator' WHERE id = $1`, [admin.id]);
    const afterDemotion = await endedTurn(bob.id);
    await new WebhooksRepository(db.dataSource).insertTurnDeliveries(bob.id, afterDemotion);
    expect(await receivers(afterDemotion)).toEqual([]);

    await db.dataSource.query(`UPDATE operators SET role = 'admin', disabled = true WHERE id = $1`, [
      admin.id,
    ]);
    const whileDisabled = await endedTurn(bob.id);
    await new WebhooksRepository(db.dataSource).insertTurnDeliveries(bob.id, whileDisabled);
    expect(await receivers(whileDisabled)).toEqual([]);
  });
});
