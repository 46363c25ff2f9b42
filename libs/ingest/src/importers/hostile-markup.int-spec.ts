/**
 * Text fields are stripped of HTML on import. A field of unclosed tags (`<a<a<a…`) must cost time
 * in proportion to its length: a pattern that rescans to the end from every `<` took minutes for
 * a few hundred kilobytes and held the only import slot, one file blocking every operator's imports.
 */
import { createTestDatabase, type TestDatabase } from '@corpus-chat/persistence/testing';
import { importReport } from './import-report';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db?.drop());

it('imports a report whose description is 300 kB of unclosed tags in seconds, keeping its text', async () => {
  const description = '<a'.repeat(150_000);
  const result = {
    'template-id': 'unclosed-tags',
    host: 'https://example.org',
    'matched-at': 'https://example.org/',
    info: { name: 'Unclosed <b>tags</b>', severity: 'low', description },
  };
  const started = Date.now();
  const outcome = await importReport(db.dataSource, {
    filename: 'unclosed-tags.json',
    bytes: Buffer.from(JSON.stringify(result)),
  });
  // Linear stripping takes milliseconds; the quadratic pattern took over 30 s on this input.
  expect(Date.now() - started).toBeLessThan(10_000);
  expect(outcome).toMatchObject({ ok: true, findingCount: 1 });
  const [finding] = await db.dataSource.query(
    `SELECT v.title, length(v.description) AS chars FROM finding_versions v ORDER BY v.id DESC LIMIT 1`,
  );
  expect(finding.title).toMatch(/^Unclosed\s+tags$/);
  expect(finding.chars).toBeGreaterThan(0);
});
