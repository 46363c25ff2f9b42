/** importPaths as `npm start` and `corpus:import` run it: one file never stops the batch, and a rerun resumes. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { corpusPath } from '../testing';
import { createTestDatabase, type TestDatabase } from '@corpus-chat/persistence/testing';
import { batchSummary, importPaths } from './import-paths';

let db: TestDatabase;
let dir: string;
beforeAll(async () => {
  db = await createTestDatabase();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'import-paths-'));
  // A database failure that is not the content's fault (the storing statement itself fails).
  await db.dataSource.query(`
    CREATE FUNCTION fail_poison() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'disk quota exceeded near relation 1663/16384' USING ERRCODE = '53100'; END $$;
    CREATE TRIGGER fail_poison BEFORE INSERT ON reports FOR EACH ROW
      WHEN (NEW.filename = 'c-poison.json') EXECUTE FUNCTION fail_poison();`);
});
afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  await db?.drop();
});

const copy = (from: string, as: string) => fs.copyFileSync(corpusPath(from), path.join(dir, as));
const reportCount = async (): Promise<number> =>
  (await db.dataSource.query(`SELECT count(*)::int AS n FROM reports`))[0].n;

test('a broken file and a database failure are listed, the rest imported; a rerun imports only what is new', async () => {
  copy('scans/zap/dd__juicy2.xml', 'a-good.xml');
  fs.writeFileSync(path.join(dir, 'b-broken.json'), '{"version": "2.1.0", "runs": [');
  copy('scans/zap/bcgov-pipeline-templates__zap-2.12.0-itsecgames.json', 'c-poison.json');
  copy('scans/zap/dd__dvwa_baseline_dojo.xml', 'd-good.xml');

  const first = await importPaths(db.dataSource, [dir]);
  expect(first.map((o) => [o.file, o.ok ? 'ok' : o.code])).toEqual([
    ['a-good.xml', 'ok'],
    ['b-broken.json', 'INVALID'],
    ['c-poison.json', 'STORE_FAILED'],
    ['d-good.xml', 'ok'],
  ]);
  const poison = first[2];
  expect(poison.ok).toBe(false);
  if (!poison.ok) {
    expect(poison.error).toMatch(/^the report could not be stored .*\(error id [0-9a-f]{6}\)$/);
    expect(poison.error).not.toMatch(/quota|relation|53100/);
  }
  expect(await reportCount()).toBe(2);

  copy('scans/zap/bcgov-pipeline-templates__zap-2.14.0-itsecgames.json', 'e-new.json');
  const second = await importPaths(db.dataSource, [dir]);
  expect(second.map((o) => [o.file, o.ok ? 'ok' : o.code])).toEqual([
    ['a-good.xml', 'DUPLICATE'],
    ['b-broken.json', 'INVALID'],
    ['c-poison.json', 'STORE_FAILED'],
    ['d-good.xml', 'DUPLICATE'],
    ['e-new.json', 'ok'],
  ]);
  expect(await reportCount()).toBe(3);
  const summary = batchSummary(second);
  expect(summary[0]).toBe('imported 1 report(s), skipped 2 already imported, refused 2');
  expect(summary.slice(1)).toEqual([
    expect.stringMatching(/^ {2}imported e-new\.json: zap, \d+ findings$/),
    expect.stringMatching(/^ {2}refused {2}b-broken\.json: /),
    expect.stringMatching(/^ {2}refused {2}c-poison\.json: the report could not be stored/),
  ]);
});

test('with archivedToo (the start-up import) an archived report is skipped, not brought back', async () => {
  const own = fs.mkdtempSync(path.join(os.tmpdir(), 'import-archived-'));
  try {
    fs.copyFileSync(corpusPath('scans/nuclei/dd__multiple_matches.jsonl'), path.join(own, 'n.jsonl'));
    const [first] = await importPaths(db.dataSource, [own], { archivedToo: true });
    expect(first.ok).toBe(true);
    if (!first.ok) return;
    await db.dataSource.query(`UPDATE reports SET archived = true WHERE id = $1`, [first.reportId]);
    const before = await reportCount();

    const [again] = await importPaths(db.dataSource, [own], { archivedToo: true });
    expect(again).toMatchObject({ ok: false, code: 'DUPLICATE', existingReportId: first.reportId });
    if (!again.ok) expect(again.error).toContain('which is archived');
    expect(await reportCount()).toBe(before);

    // Without it (corpus:import, an upload) the archived report's file imports again.
    const [manual] = await importPaths(db.dataSource, [own]);
    expect(manual.ok).toBe(true);
  } finally {
    fs.rmSync(own, { recursive: true, force: true });
  }
});
