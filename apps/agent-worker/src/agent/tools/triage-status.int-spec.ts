/**
 * The agent's tools see triage: a status filter in `search_findings` and `count_findings_by`
 * (validated against the shared schema), counts of the current version after an edit, and the
 * overview's counts by status.
 */
import 'reflect-metadata';
import {
  CorpusTools,
  defaultCorpusQueries,
  defaultReadOnly,
  editFinding,
  setFindingStatus,
} from '@corpus-chat/corpus-queries';
import { createTestDatabase, type TestDatabase } from '@corpus-chat/persistence/testing';
import { importCorpusFiles } from '@corpus-chat/ingest/testing';

const actor = { id: '00000000-0000-4000-8000-000000000001', username: 'alice' };
let db: TestDatabase;
let tools: CorpusTools;
let ids: number[];

beforeAll(async () => {
  db = await createTestDatabase();
  expect((await importCorpusFiles(db.dataSource, ['scans/zap/dd__juicy2.xml'])).every((o) => o.ok)).toBe(
    true,
  );
  ids = (await db.dataSource.query(`SELECT id FROM findings ORDER BY id`)).map((r: { id: number }) => r.id);
  tools = new CorpusTools(db.dataSource, defaultCorpusQueries, defaultReadOnly);
}, 60_000);
afterAll(async () => db?.drop());

const model = (r: Awaited<ReturnType<CorpusTools['execute']>>) => {
  expect(r.ok).toBe(true);
  return r.ok ? JSON.parse(r.modelContent) : undefined;
};

test('status filters and counts reflect triage and edits', async () => {
  expect(
    (
      await setFindingStatus(db.dataSource.manager, {
        ids: ids.slice(0, 2),
        status: 'false_positive',
        reason: 'test data',
        actor,
      })
    ).status,
  ).toBe('ok');
  expect(
    (await editFinding(db.dataSource.manager, ids[0], { severity: 'critical' }, 'exploited', actor)).status,
  ).toBe('ok');

  expect(model(await tools.execute('search_findings', { status: 'False_Positive' })).total).toBe(2);
  const counts = model(
    await tools.execute('count_findings_by', { groupBy: 'severity', filter: { status: 'false_positive' } }),
  );
  expect(counts.total).toBe(2);
  expect(counts.groups.find((g: { key: string }) => g.key === 'critical').count).toBe(1);
  expect(model(await tools.execute('get_corpus_overview', {})).statuses).toEqual({
    open: 4,
    confirmed: 0,
    false_positive: 2,
    risk_accepted: 0,
    fixed: 0,
    needs_review: 0,
  });

  const bad = await tools.execute('search_findings', { status: 'dismissed' });
  expect(bad.ok).toBe(false);
});
