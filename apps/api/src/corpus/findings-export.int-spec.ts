/**
 * `GET /api/findings/export.csv|json` against real shared corpus files: the exported rows are
 * exactly the findings `searchFindings` counts for the same filter, in its order; CSV cells a
 * spreadsheet would run as formulas are defused; a bad filter is a 400 before any byte; each
 * export leaves a `findings.export` audit event with its filter and row count.
 */
import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { parse } from 'csv-parse/sync';
import type { FindingFilter } from '@corpus-chat/contracts';
import { exportFindingPages, runReadOnly, searchFindings } from '@corpus-chat/corpus-queries';
import { importReport } from '@corpus-chat/ingest';
import { corpusPath } from '@corpus-chat/ingest/testing';
import { createTestDatabase, type TestDatabase } from '@corpus-chat/persistence/testing';
import { type ApiInstance, newDeployment, signIn, startApiInstance } from '../../test/support/chat-harness';
import { bearer, createApiToken } from '../../test/support/api-tokens';
import type { LoginSession } from '../../test/support/login';
import { FINDINGS_CSV_COLUMNS } from './findings-export';

let db: TestDatabase;
let api: ApiInstance;
let headers: Record<string, string>;
let operatorId: string;
let session: LoginSession;

const http = () => request(api.app.getHttpServer());
const FORMULA_TITLE = '=HYPERLINK("https://attacker.example","open"), then more';

/** One nuclei finding whose title a spreadsheet would run as a formula. */
function formulaReport(): Buffer {
  const [first] = fs.readFileSync(corpusPath('scans/nuclei/dd__many_findings_new.jsonl'), 'utf8').split('\n');
  const line = JSON.parse(first);
  line.info.name = FORMULA_TITLE;
  line['template-id'] = 'formula-title';
  return Buffer.from(`${JSON.stringify(line)}\n`);
}

/** Every finding id `searchFindings` returns for `filter`, paging 50 at a time, and its total. */
async function searchedIds(filter: FindingFilter): Promise<{ total: number; ids: number[] }> {
  return runReadOnly(db.dataSource, async (m) => {
    const ids: number[] = [];
    let total = 0;
    do {
      const page = await searchFindings(m, { ...filter, limit: 50, offset: ids.length }, { cache: false });
      total = page.total;
      ids.push(...page.rows.map((r) => r.id));
      if (page.rows.length === 0) break;
    } while (ids.length < total);
    return { total, ids };
  });
}

const csvRows = (text: string): string[][] => parse(text, { relaxColumnCount: false });

beforeAll(async () => {
  db = await createTestDatabase();
  for (const rel of [
    'scans/sarif/dd__flawfinder.sarif',
    'scans/zap/dd__juicy2.xml',
    'scans/nuclei/dd__many_findings_new.jsonl',
  ]) {
    const outcome = await importReport(db.dataSource, {
      filename: path.basename(rel),
      bytes: fs.readFileSync(corpusPath(rel)),
    });
    expect(outcome.ok).toBe(true);
  }
  const formula = await importReport(db.dataSource, { filename: 'formula.jsonl', bytes: formulaReport() });
  expect(formula.ok).toBe(true);
  api = await startApiInstance({ databaseUrl: db.url, ...newDeployment() });
  session = await signIn(api, db.dataSource);
  headers = session.headers;
  const [me]: { id: string }[] = await db.dataSource.query(
    `SELECT id FROM operators ORDER BY created_at DESC LIMIT 1`,
  );
  operatorId = me.id;
});

afterAll(async () => {
  await api?.close();
  await db?.drop();
});

it('needs a session or an API token', async () => {
  await http().get('/api/findings/export.csv').expect(401);
  const token = await createApiToken(api.baseUrl, session, { name: 'export script' });
  const res = await http()
    .get('/api/findings/export.json')
    .query({ severity: 'medium' })
    .set(bearer(token.secret))
    .expect(200);
  expect(res.body.map((f: { id: number }) => f.id)).toEqual((await searchedIds({ severity: 'medium' })).ids);
});

describe.each<[string, FindingFilter]>([
  ['no filter', {}],
  ['a severity', { severity: 'medium' }],
  ['a text', { text: 'cross-domain' }],
  ['a weakness class', { text: 'buffer overflow' }],
  ['a report and a text', { reportName: 'dd__flawfinder.sarif', text: 'buffer' }],
])('%s', (_name, filter) => {
  it('CSV holds exactly the searchFindings matches, in its order, under a header row', async () => {
    const expected = await searchedIds(filter);
    expect(expected.total).toBeGreaterThan(0);
    const res = await http()
      .get('/api/findings/export.csv')
      .query(filter)
      .set(headers)
      .buffer(true)
      .expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="findings-[0-9TZ-]+\.csv"$/);
    const [header, ...rows] = csvRows(res.text);
    expect(header).toEqual([...FINDINGS_CSV_COLUMNS]);
    expect(rows).toHaveLength(expected.total);
    expect(rows.map((r) => Number(r[0]))).toEqual(expected.ids);
  });

  it('JSON is one array of the same findings', async () => {
    const expected = await searchedIds(filter);
    const res = await http().get('/api/findings/export.json').query(filter).set(headers).expect(200);
    expect(res.headers['content-disposition']).toMatch(/filename="findings-[0-9TZ-]+\.json"$/);
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body.map((f: { id: number }) => f.id)).toEqual(expected.ids);
  });
});

it('an empty match is a header only (CSV) and an empty array (JSON)', async () => {
  const csv = await http()
    .get('/api/findings/export.csv')
    .query({ text: 'no-such-word-anywhere' })
    .set(headers)
    .buffer(true)
    .expect(200);
  expect(csvRows(csv.text)).toEqual([[...FINDINGS_CSV_COLUMNS]]);
  const json = await http()
    .get('/api/findings/export.json')
    .query({ text: 'no-such-word-anywhere' })
    .set(headers)
    .expect(200);
  expect(json.body).toEqual([]);
});

it('defuses a title a spreadsheet would run as a formula and keeps its commas and quotes', async () => {
  const res = await http()
    .get('/api/findings/export.csv')
    .query({ reportName: 'formula.jsonl' })
    .set(headers)
    .buffer(true)
    .expect(200);
  const [header, row] = csvRows(res.text);
  const cell = (name: (typeof FINDINGS_CSV_COLUMNS)[number]) => row[header.indexOf(name)];
  expect(cell('title')).toBe(`'${FORMULA_TITLE}`);
  expect(cell('report')).toBe('formula.jsonl');
  expect(cell('cwe')).toBe('362');
  expect(cell('cvss_base_score')).toBe('5.3');
  const json = await http()
    .get('/api/findings/export.json')
    .query({ reportName: 'formula.jsonl' })
    .set(headers)
    .expect(200);
  expect(json.body).toEqual([
    expect.objectContaining({
      title: FORMULA_TITLE,
      reportFilename: 'formula.jsonl',
      cwe: [362],
      cvssBaseScore: 5.3,
      status: 'open',
      latestVerdict: null,
    }),
  ]);
});

it('a bad filter is a 400 naming the field, before any byte of a file', async () => {
  const unknown = await http()
    .get('/api/findings/export.csv')
    .query({ reportName: 'nope.sarif' })
    .set(headers)
    .expect(400);
  expect(unknown.headers['content-disposition']).toBeUndefined();
  expect(JSON.stringify(unknown.body)).toContain('nope.sarif');
  await http().get('/api/findings/export.json').query({ severity: 'urgent' }).set(headers).expect(400);
  await http().get('/api/findings/export.csv').query({ limit: 5 }).set(headers).expect(400);
});

it('records a findings.export audit event with the filter and the row count', async () => {
  const { total } = await searchedIds({ severity: 'low' });
  await http()
    .get('/api/findings/export.csv')
    .query({ severity: 'low' })
    .set(headers)
    .buffer(true)
    .expect(200);
  const events: {
    actor_id: string;
    subject_type: string;
    after: { format: string; filter: FindingFilter; rows: number };
  }[] = await db.dataSource.query(
    `SELECT actor_id, subject_type, after FROM audit_events WHERE action = 'findings.export' ORDER BY id DESC LIMIT 1`,
  );
  expect(events).toEqual([
    {
      actor_id: operatorId,
      subject_type: 'finding',
      after: { format: 'csv', filter: { severity: 'low' }, rows: total },
    },
  ]);
});

it('pages of any size join into the same rows (keyset on severity, id)', async () => {
  const collect = (pageSize: number) =>
    runReadOnly(db.dataSource, async (m) => {
      const ids: number[] = [];
      for await (const page of exportFindingPages(m, {}, pageSize)) {
        expect(page.length).toBeLessThanOrEqual(pageSize);
        ids.push(...page.map((r) => r.id));
      }
      return ids;
    });
  const expected = await searchedIds({});
  expect(await collect(7)).toEqual(expected.ids);
  expect(await collect(expected.total)).toEqual(expected.ids);
});
