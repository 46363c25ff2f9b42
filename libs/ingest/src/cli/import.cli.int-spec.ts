/** `npm run corpus:import`: one line per file, exit code 1 when any file failed, 0 otherwise. */
import { execFile } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT, corpusPath } from '../testing';
import { createTestDatabase, type TestDatabase } from '@corpus-chat/persistence/testing';

const run = promisify(execFile);
/**
 * Ends every CLI still running when the file ends: one left behind by a test that timed out kept
 * its pipes, and with them the Jest worker, alive until it finished on its own.
 */
const children = new AbortController();
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  children.abort();
  await db?.drop();
});

async function cli(...args: string[]): Promise<{ code: number; stdout: string }> {
  try {
    const { stdout } = await run(
      process.execPath,
      ['tools/cli/run-ts.mjs', 'libs/ingest/src/cli/import.cli.ts', ...args],
      {
        cwd: REPO_ROOT,
        env: { ...process.env, DATABASE_URL: db.url },
        signal: children.signal,
      },
    );
    return { code: 0, stdout };
  } catch (e) {
    const err = e as { code: number; stdout: string };
    return { code: err.code, stdout: err.stdout };
  }
}

test('imports a folder and files, one line each, and exits 1 when one failed', async () => {
  const { code, stdout } = await cli(corpusPath('scans/trivy'), corpusPath('edge/nuclei__dd__empty.jsonl'));
  const lines = stdout.trim().split('\n');
  expect(lines).toHaveLength(6);
  expect(lines[0]).toMatch(/^ok {4}.*dd__legacy_many_vulns\.json: report \d+, trivy, 93 findings$/);
  expect(lines.filter((l) => l.startsWith('ok '))).toHaveLength(4);
  expect(lines[4]).toBe(
    `FAIL  ${corpusPath('edge/nuclei__dd__empty.jsonl')}: the file holds no report [EMPTY]`,
  );
  expect(lines[5]).toBe('4 imported, 1 failed');
  expect(code).toBe(1);
  const [row] = await db.dataSource.query(`SELECT count(*)::int AS n FROM reports`);
  expect(row.n).toBe(4);
}, 60_000);

test('exits 0 when every file imported, and refuses a missing path', async () => {
  const ok = await cli(corpusPath('scans/nuclei/dd__many_findings_new.jsonl'));
  expect(ok.code).toBe(0);
  expect(ok.stdout).toContain('1 imported, 0 failed');
  const missing = await cli(path.join(corpusPath('scans'), 'no-such-file.json'));
  expect(missing.code).toBe(1);
  expect(missing.stdout).toContain('no such file or folder');
}, 60_000);

test('records each imported report in the audit log as the OS user on the command line', async () => {
  const file = corpusPath('scans/burp/dd__one_finding.xml');
  const { code, stdout } = await cli(file);
  expect(code).toBe(0);
  const reportId = Number(/report (\d+),/.exec(stdout)?.[1]);
  const events = await db.dataSource.query(
    `SELECT actor_id AS "actorId", actor_name AS "actorName", after FROM audit_events WHERE action = 'report.import' AND subject_id = $1`,
    [String(reportId)],
  );
  expect(events).toEqual([
    {
      actorId: null,
      actorName: `cli:${os.userInfo().username}`,
      after: { filename: 'dd__one_finding.xml', format: 'burp', findingCount: 3 },
    },
  ]);
  // A refused file (here a duplicate) writes no event.
  const count = `SELECT count(*)::int AS n FROM audit_events WHERE action = 'report.import'`;
  const before = await db.dataSource.query(count);
  const again = await cli(file);
  expect(again.code).toBe(1);
  expect(await db.dataSource.query(count)).toEqual(before);
}, 60_000);
