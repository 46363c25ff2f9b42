/**
 * The corpus routes on the real auth guard, Postgres and Redis, one block per area, each on a
 * database and API of its own. One file, so the API's modules load once (about 2 s of CPU a file).
 */

import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import {
  corpusOverview,
  countFindingsBy,
  exportFindingPages,
  runReadOnly,
  searchFindings,
} from '@corpus-chat/corpus-queries';
import { importReport } from '@corpus-chat/ingest';
import { corpusPath } from '@corpus-chat/ingest/testing';
import {
  createTestDatabase,
  insertTestOperator,
  type TestDatabase,
  type TestOperator,
} from '@corpus-chat/persistence/testing';
import { type ApiInstance, newDeployment, signIn, startApiInstance } from '../../test/support/chat-harness';
import { parse } from 'csv-parse/sync';
import {
  type AuditEventView,
  CSRF_HEADER,
  CSRF_HEADER_VALUE,
  type FindingFilter,
  type FindingRow,
} from '@corpus-chat/contracts';
import { bearer, createApiToken } from '../../test/support/api-tokens';
import type { LoginSession } from '../../test/support/login';
import { FINDINGS_CSV_COLUMNS } from './findings-export';
import type { NestExpressApplication } from '@nestjs/platform-express';

/**
 * `/api/reports`, `/api/findings`, `/api/corpus` on the real auth guard, Postgres and Redis:
 * archive, and the query endpoints answering what the query functions answer. The corpus is
 * imported with the library importer; uploads through the ingest worker are tested in
 * `apps/api/test/imports.int-spec.ts`.
 */
describe('reports, findings and corpus queries', () => {
  let db: TestDatabase;
  let api: ApiInstance;
  let headers: Record<string, string>;

  const http = () => request(api.app.getHttpServer());

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
    api = await startApiInstance({ databaseUrl: db.url, ...newDeployment() });
    headers = (await signIn(api, db.dataSource)).headers;
  });
  afterAll(async () => {
    await api?.close();
    await db?.drop();
  });

  it('needs a session', async () => {
    await http().get('/api/reports').expect(401);
    await http().get('/api/findings').expect(401);
  });

  describe('reports', () => {
    it('archives and restores a report; unknown ids are 404, bad bodies 400', async () => {
      const list = await http().get('/api/reports').set(headers).expect(200);
      const juicy = list.body.find((r: { filename: string }) => r.filename === 'dd__juicy2.xml');
      expect(juicy).toMatchObject({
        findingCount: 6,
        archived: false,
        status: 'ready',
        bySeverity: { low: 2, medium: 2, info: 2 },
      });

      const archived = await http()
        .patch(`/api/reports/${juicy.id}`)
        .set(headers)
        .send({ archived: true })
        .expect(200);
      expect(archived.body).toMatchObject({ id: juicy.id, archived: true });
      const live = await http().get('/api/reports').set(headers).expect(200);
      expect(live.body.map((r: { id: number }) => r.id)).not.toContain(juicy.id);
      const all = await http().get('/api/reports?includeArchived=true').set(headers).expect(200);
      expect(all.body.map((r: { id: number }) => r.id)).toContain(juicy.id);
      const overview = await http().get('/api/corpus/overview').set(headers).expect(200);
      expect(overview.body.perReport.map((r: { id: number }) => r.id)).not.toContain(juicy.id);

      await http().patch(`/api/reports/${juicy.id}`).set(headers).send({ archived: false }).expect(200);
      await http().patch('/api/reports/999999').set(headers).send({ archived: true }).expect(404);
      await http().patch(`/api/reports/${juicy.id}`).set(headers).send({ archived: 'yes' }).expect(400);
      await http()
        .patch(`/api/reports/${juicy.id}`)
        .set(headers)
        .send({ archived: true, extra: 1 })
        .expect(400);
    });
  });

  describe('findings', () => {
    it('GET /api/findings answers what searchFindings answers; bad values are 400 naming the field', async () => {
      const res = await http()
        .get('/api/findings')
        .query({ text: 'buffer overflow', limit: 5 })
        .set(headers)
        .expect(200);
      const direct = await searchFindings(db.dataSource.manager, { text: 'buffer overflow', limit: 5 });
      expect(res.body).toEqual(direct);
      expect(res.body.total).toBeGreaterThan(5);
      expect(res.body.rows).toHaveLength(5);

      const byName = await http()
        .get('/api/findings')
        .query({ reportName: 'DD__FLAWFINDER.SARIF', limit: 0 })
        .set(headers)
        .expect(200);
      expect(byName.body.total).toBe(53);

      const bad = await http().get('/api/findings').query({ severity: 'urgent' }).set(headers).expect(400);
      expect(JSON.stringify(bad.body)).toContain('severity must be one of');
      await http().get('/api/findings').query({ limit: 51 }).set(headers).expect(400);
      const unknownReport = await http()
        .get('/api/findings')
        .query({ reportName: 'nope.sarif' })
        .set(headers)
        .expect(400);
      expect(unknownReport.body).toMatchObject({ field: 'reportName' });
    });

    it('GET /api/findings/counts groups exactly', async () => {
      const res = await http()
        .get('/api/findings/counts')
        .query({ groupBy: 'severity', reportName: 'dd__flawfinder.sarif' })
        .set(headers)
        .expect(200);
      const direct = await countFindingsBy(db.dataSource.manager, {
        groupBy: 'severity',
        filter: { reportName: 'dd__flawfinder.sarif' },
      });
      expect(res.body).toEqual(direct);
      expect(res.body.total).toBe(53);
      await http().get('/api/findings/counts').query({ groupBy: 'colour' }).set(headers).expect(400);
    });

    it('GET /api/findings/counts takes the format and scanner filters and groups by format', async () => {
      const res = await http()
        .get('/api/findings/counts')
        .query({ groupBy: 'format', scanner: 'FLAWFINDER' })
        .set(headers)
        .expect(200);
      const direct = await countFindingsBy(db.dataSource.manager, {
        groupBy: 'format',
        filter: { scanner: 'FLAWFINDER' },
      });
      expect(res.body).toEqual(direct);
      expect(res.body.groups).toEqual([{ key: 'sarif', label: 'sarif', count: 53 }]);
      const sarif = await http()
        .get('/api/findings')
        .query({ format: 'sarif', limit: 0 })
        .set(headers)
        .expect(200);
      expect(sarif.body.total).toBe(
        (await searchFindings(db.dataSource.manager, { format: 'sarif', limit: 0 })).total,
      );
      const bad = await http().get('/api/findings').query({ format: 'docx' }).set(headers).expect(400);
      expect(JSON.stringify(bad.body)).toContain('format must be one of');
    });

    it('GET /api/findings/:id answers the detail, 404 when unknown, 400 when not a number', async () => {
      const page = await http().get('/api/findings').query({ limit: 1 }).set(headers).expect(200);
      const id = page.body.rows[0].id;
      const detail = await http().get(`/api/findings/${id}`).set(headers).expect(200);
      expect(detail.body).toMatchObject({
        id,
        versionCount: 1,
        current: { version: 1, origin: 'import' },
        notes: [],
        latestVerdict: null,
      });
      await http().get('/api/findings/99999999').set(headers).expect(404);
      await http().get('/api/findings/abc').set(headers).expect(400);
    });

    it('GET /api/corpus/overview totals the live corpus', async () => {
      const res = await http().get('/api/corpus/overview').set(headers).expect(200);
      const total = await searchFindings(db.dataSource.manager, { limit: 0 });
      expect(res.body.findings.total).toBe(total.total);
      expect(res.body.reports.total).toBe(res.body.perReport.length);
    });
  });
});

/**
 * Scan comparison over HTTP on the real auth guard, Postgres and Redis: an uploaded re-scan reports
 * what changed since the previous scan; `GET /api/reports/compare` (JSON and streamed CSV) and
 * `GET /api/reports/:id/scans` answer what the query functions answer, with clear 4xx refusals.
 */
describe('scan comparison', () => {
  let db: TestDatabase;
  let api: ApiInstance;
  let headers: Record<string, string>;
  let operatorId: string;

  const http = () => request(api.app.getHttpServer());
  const importFile = async (rel: string) => {
    const outcome = await importReport(db.dataSource, {
      filename: path.basename(rel),
      bytes: fs.readFileSync(corpusPath(rel)),
    });
    if (!outcome.ok) throw new Error(outcome.error);
    return outcome;
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    api = await startApiInstance({ databaseUrl: db.url, ...newDeployment() });
    const session = await signIn(api, db.dataSource);
    headers = session.headers;
    operatorId = session.operator.id;
  }, 60_000);
  afterAll(async () => {
    await api?.close();
    await db?.drop();
  }, 60_000);

  const V211 = 'bcgov-pipeline-templates__zap-2.11.0-itsecgames.json';
  const V212 = 'bcgov-pipeline-templates__zap-2.12.0-itsecgames.json';
  const OTHER = 'dd__zap-results-first-scan.xml';
  let ids: Record<string, number>;

  describe('scan comparison', () => {
    it('an imported re-scan reports what changed since the previous scan of its target', async () => {
      const results = [
        await importFile(`scans/zap/${V211}`),
        await importFile(`scans/zap/${V212}`),
        await importFile(`scans/zap/${OTHER}`),
      ];
      ids = Object.fromEntries(results.map((r) => [r.file, r.reportId]));
      expect(results[0].sincePrevious).toBeUndefined();
      expect(results[1].sincePrevious).toEqual({
        baselineReportId: ids[V211],
        baselineFilename: V211,
        new: 0,
        fixed: 2,
        unchanged: 8,
        carried: { falsePositive: 0, riskAccepted: 0, confirmed: 0, reopened: 0 },
      });
      expect(results[2].sincePrevious).toBeUndefined();
    });

    it('GET /api/reports/compare: counts and the new and fixed findings', async () => {
      const res = await http()
        .get('/api/reports/compare')
        .query({ baseline: ids[V211], report: ids[V212] })
        .set(headers)
        .expect(200);
      expect(res.body).toMatchObject({
        new: 0,
        fixed: 2,
        unchanged: 8,
        target: ['http://www.itsecgames.com'],
        baseline: { id: ids[V211], filename: V211 },
        report: { id: ids[V212] },
      });
      expect(res.body.fixedFindings.map((f: { title: string }) => f.title)).toEqual([
        'Reverse Tabnabbing',
        'Timestamp Disclosure - Unix',
      ]);
    });

    it('format=csv streams one row per new and fixed finding', async () => {
      const res = await http()
        .get('/api/reports/compare')
        .query({ baseline: ids[V212], report: ids[V211], format: 'csv' })
        .set(headers)
        .expect(200);
      expect(res.headers['content-type']).toMatch(/^text\/csv/);
      expect(res.headers['content-disposition']).toContain(`comparison-${ids[V212]}-${ids[V211]}.csv`);
      const lines = res.text.trimEnd().split('\r\n');
      expect(lines[0]).toBe('change,finding_id,title,severity,report_id,report');
      expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual(['new', 'new']);
      expect(
        lines
          .slice(1)
          .map((l) => l.split(',')[2])
          .sort(),
      ).toEqual(['Reverse Tabnabbing', 'Timestamp Disclosure - Unix']);
      // The download is audited; the JSON answers above are not exports and left no event.
      const events = await db.dataSource.query(
        `SELECT actor_id, subject_type, subject_id, after FROM audit_events WHERE action = 'comparison.export'`,
      );
      expect(events).toEqual([
        {
          actor_id: operatorId,
          subject_type: 'report',
          subject_id: String(ids[V211]),
          after: { baselineReportId: ids[V212], new: 2, fixed: 0, rows: 2 },
        },
      ]);
    });

    it('refuses with a message a person can act on', async () => {
      const other = await http()
        .get('/api/reports/compare')
        .query({ baseline: ids[V211], report: ids[OTHER] })
        .set(headers)
        .expect(422);
      expect(other.body).toMatchObject({ error: 'NOT_SAME_TARGET' });
      expect(other.body.message).toContain('http://www.itsecgames.com');
      expect(other.body.message).toContain('http://bodgeit.securecodebox-demo.svc:8080');
      const missing = await http()
        .get('/api/reports/compare')
        .query({ baseline: ids[V211], report: 999_999 })
        .set(headers)
        .expect(404);
      expect(missing.body.message).toBe('there is no report 999999');
      await http()
        .get('/api/reports/compare')
        .query({ baseline: ids[V211], report: ids[V211] })
        .set(headers)
        .expect(400);
      const bad = await http()
        .get('/api/reports/compare')
        .query({ baseline: 'first', report: ids[V211] })
        .set(headers)
        .expect(400);
      expect(JSON.stringify(bad.body.message)).toContain('baseline must be the id of the older report');
      await http().get('/api/reports/compare').query({ baseline: ids[V211], report: ids[V212] }).expect(401);
    });

    it('GET /api/reports/:id/scans lists the scans of the same target by recorded scan time', async () => {
      const res = await http().get(`/api/reports/${ids[V212]}/scans`).set(headers).expect(200);
      expect(res.body.target).toEqual(['http://www.itsecgames.com']);
      expect(
        res.body.scans.map((s: { filename: string; scannedAt: string }) => [s.filename, s.scannedAt]),
      ).toEqual([
        [V211, '2021-11-23T22:36:55.000Z'],
        [V212, '2023-07-04T20:03:01.000Z'],
      ]);
      await http().get('/api/reports/999999/scans').set(headers).expect(404);
    });
  });
});

/**
 * `GET /api/findings/export.csv|json` against real shared corpus files: the exported rows are
 * exactly the findings `searchFindings` counts for the same filter, in its order; CSV cells a
 * spreadsheet would run as formulas are defused; a bad filter is a 400 before any byte; each
 * export leaves a `findings.export` audit event with its filter and row count.
 */
describe('findings export', () => {
  let db: TestDatabase;
  let api: ApiInstance;
  let headers: Record<string, string>;
  let operatorId: string;
  let session: LoginSession;

  const http = () => request(api.app.getHttpServer());
  const FORMULA_TITLE = '=HYPERLINK("https://attacker.example","open"), then more';

  /** One nuclei finding whose title a spreadsheet would run as a formula. */
  function formulaReport(): Buffer {
    const [first] = fs
      .readFileSync(corpusPath('scans/nuclei/dd__many_findings_new.jsonl'), 'utf8')
      .split('\n');
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
    expect(res.body.map((f: { id: number }) => f.id)).toEqual(
      (await searchedIds({ severity: 'medium' })).ids,
    );
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
});

/**
 * Triage over REST on the real auth guard, Postgres and Redis: status transitions (single and bulk,
 * all or none), lineage edits, notes and retests, each recorded with who and when, counted by the
 * query functions the agent's tools call; the audit log (admin only) and report deletion rules.
 */
describe('finding triage', () => {
  // Creating and resetting operators hashes passwords with argon2id at production cost (seconds on 2 cores).

  let db: TestDatabase;
  let api: ApiInstance;
  let app: NestExpressApplication;
  let op: TestOperator;
  let admin: TestOperator;
  let asOp: Record<string, string>;
  let asAdmin: Record<string, string>;
  let reportId: number;
  let ids: number[];

  const http = () => request(app.getHttpServer());
  const m = () => db.dataSource.manager;

  async function login(o: TestOperator): Promise<Record<string, string>> {
    const res = await http()
      .post('/api/auth/login')
      .set(CSRF_HEADER, CSRF_HEADER_VALUE)
      .send({ username: o.username, password: o.password });
    expect(res.status).toBe(200);
    const cookie = ([] as string[])
      .concat(res.headers['set-cookie'])
      .map((c) => c.split(';')[0])
      .find((c) => c.startsWith('cc_session='))!;
    return { Cookie: cookie, [CSRF_HEADER]: CSRF_HEADER_VALUE };
  }

  async function audit(query: Record<string, string> = {}): Promise<AuditEventView[]> {
    const res = await http()
      .get('/api/audit')
      .query({ limit: '200', ...query })
      .set(asAdmin)
      .expect(200);
    return res.body.events;
  }

  const statusCount = async (status: string) =>
    (await searchFindings(m(), { status, limit: 0 } as never)).total;

  beforeAll(async () => {
    db = await createTestDatabase();
    api = await startApiInstance({ databaseUrl: db.url, ...newDeployment() });
    app = api.app;
    op = await insertTestOperator(db.dataSource, { role: 'operator' });
    admin = await insertTestOperator(db.dataSource, { role: 'admin' });
    asOp = await login(op);
    asAdmin = await login(admin);
    // Uploads go through the ingest worker (apps/api/test/imports.int-spec.ts); the import itself,
    // with its audit event, is the library's.
    const rel = 'scans/zap/dd__juicy2.xml';
    const imported = await importReport(
      db.dataSource,
      { filename: path.basename(rel), bytes: fs.readFileSync(corpusPath(rel)) },
      { actor: { id: op.id, username: op.username } },
    );
    if (!imported.ok) throw new Error(imported.error);
    reportId = imported.reportId;
    const found = await http().get('/api/findings').query({ reportId, limit: 50 }).set(asOp).expect(200);
    ids = found.body.rows.map((r: FindingRow) => r.id).sort((a: number, b: number) => a - b);
    expect(ids).toHaveLength(6);
  });
  afterAll(async () => {
    await api?.close();
    await db?.drop();
  });

  describe('triage status', () => {
    it('starts every imported finding open, in rows, detail, counts and the overview', async () => {
      const page = await http().get('/api/findings').query({ reportId }).set(asOp).expect(200);
      expect(page.body.rows.every((r: FindingRow) => r.status === 'open')).toBe(true);
      expect((await http().get(`/api/findings/${ids[0]}`).set(asOp).expect(200)).body.status).toBe('open');
      expect((await corpusOverview(m())).statuses).toEqual({
        open: 6,
        confirmed: 0,
        false_positive: 0,
        risk_accepted: 0,
        fixed: 0,
        needs_review: 0,
      });
    });

    it('records each change with who, when and why, and refuses transitions the workflow does not allow', async () => {
      const [a] = ids;
      const confirmed = await http()
        .patch(`/api/findings/${a}/status`)
        .set(asOp)
        .send({ status: 'confirmed' })
        .expect(200);
      expect(confirmed.body).toMatchObject({ id: a, status: 'confirmed' });

      const again = await http()
        .patch(`/api/findings/${a}/status`)
        .set(asOp)
        .send({ status: 'confirmed' })
        .expect(409);
      expect(again.body.message).toBe(`finding ${a} is already confirmed; nothing was changed`);
      const noReason = await http()
        .patch(`/api/findings/${a}/status`)
        .set(asOp)
        .send({ status: 'false_positive' })
        .expect(400);
      expect(noReason.body).toMatchObject({
        field: 'reason',
        message: 'marking a finding false positive needs a reason',
      });
      await http().patch(`/api/findings/${a}/status`).set(asOp).send({ status: 'dismissed' }).expect(400);
      await http().patch('/api/findings/999999/status').set(asOp).send({ status: 'confirmed' }).expect(404);

      await http()
        .patch(`/api/findings/${a}/status`)
        .set(asOp)
        .send({ status: 'false_positive', reason: 'test fixture only' })
        .expect(200);
      const closed = await http()
        .patch(`/api/findings/${a}/status`)
        .set(asOp)
        .send({ status: 'confirmed' })
        .expect(409);
      expect(closed.body.message).toContain(`finding ${a} is false positive; it can only become open`);
      await http().patch(`/api/findings/${a}/status`).set(asOp).send({ status: 'open' }).expect(400);
      await http()
        .patch(`/api/findings/${a}/status`)
        .set(asAdmin)
        .send({ status: 'open', reason: 'fixture is deployed after all' })
        .expect(200);

      const history = await http().get(`/api/findings/${a}/history`).set(asOp).expect(200);
      expect(history.body.status).toBe('open');
      expect(
        history.body.statusChanges.map(
          (c: { from: string; to: string; reason: string | null; actorName: string; actorId: string }) => [
            c.from,
            c.to,
            c.reason,
            c.actorName,
            c.actorId,
          ],
        ),
      ).toEqual([
        ['false_positive', 'open', 'fixture is deployed after all', admin.username, admin.id],
        ['confirmed', 'false_positive', 'test fixture only', op.username, op.id],
        ['open', 'confirmed', null, op.username, op.id],
      ]);
      for (const c of history.body.statusChanges) expect(Number.isNaN(Date.parse(c.createdAt))).toBe(false);
    });

    it('changes many findings at once, all or none, and the counts follow', async () => {
      const [, b, c, d] = ids;
      const eventsBefore = (await audit({ action: 'finding.status' })).length;
      const unknown = await http()
        .post('/api/findings/status')
        .set(asOp)
        .send({ ids: [b, 999999], status: 'fixed' })
        .expect(404);
      expect(unknown.body.message).toBe('No finding has id 999999; nothing was changed.');
      expect(await statusCount('fixed')).toBe(0);

      const done = await http()
        .post('/api/findings/status')
        .set(asOp)
        .send({ ids: [c, b], status: 'fixed' })
        .expect(200);
      expect(done.body).toEqual({ status: 'fixed', changed: [b, c] });
      // b is fixed now: fixed → risk accepted is not allowed, so d must not change either.
      const mixed = await http()
        .post('/api/findings/status')
        .set(asOp)
        .send({ ids: [b, d], status: 'risk_accepted', reason: 'compensating WAF rule' })
        .expect(409);
      expect(mixed.body.message).toContain(`finding ${b} is fixed; it can only become open`);
      expect((await http().get(`/api/findings/${d}`).set(asOp).expect(200)).body.status).toBe('open');
      expect((await audit({ action: 'finding.status' })).length).toBe(eventsBefore + 2);

      await http().post('/api/findings/status').set(asOp).send({ ids: [], status: 'fixed' }).expect(400);
      await http()
        .post('/api/findings/status')
        .set(asOp)
        .send({ ids: ['x'], status: 'fixed' })
        .expect(400);

      expect(await statusCount('fixed')).toBe(2);
      expect(await statusCount('open')).toBe(4);
      const byStatus = await countFindingsBy(m(), { groupBy: 'severity', filter: { status: 'fixed' } });
      expect(byStatus.total).toBe(2);
      expect(byStatus.filter.status).toBe('fixed');
      const rest = await http()
        .get('/api/findings/counts')
        .query({ groupBy: 'report', status: 'fixed' })
        .set(asOp)
        .expect(200);
      expect(rest.body.total).toBe(2);
      await http().get('/api/findings').query({ status: 'closed' }).set(asOp).expect(400);
      expect((await corpusOverview(m())).statuses).toMatchObject({ open: 4, fixed: 2 });
    });
  });

  describe('lineage edits', () => {
    it('appends a version with who and why; version 1 stays as imported and counts read the current one', async () => {
      const e = ids[4];
      const before = (await http().get(`/api/findings/${e}`).set(asOp).expect(200)).body;
      const criticalBefore = (await countFindingsBy(m(), { groupBy: 'severity' })).groups.find(
        (g) => g.key === 'critical',
      )!.count;
      const edited = await http()
        .post(`/api/findings/${e}/versions`)
        .set(asOp)
        .send({
          title: 'Quasar gadget chain in admin console',
          severity: 'critical',
          cwe: [502, 502, 20],
          reason: 'exploit confirmed in staging',
        })
        .expect(201);
      expect(edited.body).toMatchObject({
        versionCount: 2,
        current: {
          version: 2,
          origin: 'edit',
          severity: 'critical',
          cwe: [20, 502],
          editedBy: op.username,
          reason: 'exploit confirmed in staging',
        },
      });
      expect(edited.body.current.description).toBe(before.current.description);

      const counts = await countFindingsBy(m(), { groupBy: 'severity' });
      expect(counts.groups.find((g) => g.key === 'critical')!.count).toBe(criticalBefore + 1);
      expect((await searchFindings(m(), { text: 'Quasar gadget' })).rows.map((r) => r.id)).toEqual([e]);
      expect((await searchFindings(m(), { cwe: 502 })).rows.map((r) => r.id)).toEqual([e]);

      const history = (await http().get(`/api/findings/${e}/history`).set(asOp).expect(200)).body;
      expect(
        history.versions.map((v: { version: number; origin: string; title: string; severity: string }) => [
          v.version,
          v.origin,
          v.title,
          v.severity,
        ]),
      ).toEqual([
        [1, 'import', before.current.title, before.current.severity],
        [2, 'edit', 'Quasar gadget chain in admin console', 'critical'],
      ]);
      const [event] = await audit({ action: 'finding.edit', subjectId: String(e) });
      expect(event).toMatchObject({
        actorId: op.id,
        before: { version: 1, severity: before.current.severity, title: before.current.title },
        after: { version: 2, severity: 'critical', reason: 'exploit confirmed in staging' },
      });
    });

    it('refuses an edit without a reason, with nothing to change, with bad values or for an unknown finding', async () => {
      const e = ids[4];
      await http().post(`/api/findings/${e}/versions`).set(asOp).send({ severity: 'high' }).expect(400);
      const same = await http()
        .post(`/api/findings/${e}/versions`)
        .set(asOp)
        .send({ severity: 'critical', reason: 'again' })
        .expect(400);
      expect(same.body.message).toContain('the edit changes nothing');
      await http()
        .post(`/api/findings/${e}/versions`)
        .set(asOp)
        .send({ severity: 'severe', reason: 'x' })
        .expect(400);
      await http()
        .post(`/api/findings/${e}/versions`)
        .set(asOp)
        .send({ cwe: ['CWE-79'], reason: 'x' })
        .expect(400);
      await http().post(`/api/findings/${e}/versions`).set(asOp).send({ raw: 'x', reason: 'x' }).expect(400);
      await http()
        .post('/api/findings/999999/versions')
        .set(asOp)
        .send({ title: 'x', reason: 'x' })
        .expect(404);
      expect((await http().get(`/api/findings/${e}`).set(asOp).expect(200)).body.versionCount).toBe(2);
    });
  });

  describe('re-rated and edited findings', () => {
    it('GET /api/findings?edited=severity counts findings whose severity differs from version 1; edited=any every edited one', async () => {
      const total = async (edited: string) =>
        (await http().get('/api/findings').query({ edited, limit: 0 }).set(asOp).expect(200)).body
          .total as number;
      // ids[4] was re-rated (and retitled) above; ids[3] gets a new title only; ids[2] is re-rated and then set back.
      const [titled, roundTrip] = [ids[3], ids[2]];
      const v1 = (await http().get(`/api/findings/${roundTrip}`).set(asOp).expect(200)).body.current.severity;
      await http()
        .post(`/api/findings/${titled}/versions`)
        .set(asOp)
        .send({ title: 'Retitled by triage', reason: 'clearer title' })
        .expect(201);
      await http()
        .post(`/api/findings/${roundTrip}/versions`)
        .set(asOp)
        .send({ severity: v1 === 'info' ? 'low' : 'info', reason: 'first look' })
        .expect(201);
      await http()
        .post(`/api/findings/${roundTrip}/versions`)
        .set(asOp)
        .send({ severity: v1, reason: 'second look: as scanned' })
        .expect(201);

      expect(await total('severity')).toBe(1);
      expect(
        (await http().get('/api/findings').query({ edited: 'severity' }).set(asOp).expect(200)).body.rows.map(
          (r: FindingRow) => r.id,
        ),
      ).toEqual([ids[4]]);
      expect(await total('any')).toBe(3);
      const counts = (
        await http()
          .get('/api/findings/counts')
          .query({ groupBy: 'severity', edited: 'severity' })
          .set(asOp)
          .expect(200)
      ).body;
      expect(counts.total).toBe(1);
      expect(counts.filter).toMatchObject({ edited: 'severity' });
      const bad = await http().get('/api/findings').query({ edited: 'title' }).set(asOp).expect(400);
      expect(JSON.stringify(bad.body.message)).toContain('edited must be one of any, severity');
    });
  });

  describe('notes and retests', () => {
    it('adds stage-tagged notes and refuses stages operators do not write', async () => {
      const f = ids[5];
      const res = await http()
        .post(`/api/findings/${f}/notes`)
        .set(asOp)
        .send({ stage: 'triage', body: 'Owner: payments team' })
        .expect(201);
      expect(res.body.notes).toEqual([
        expect.objectContaining({ stage: 'triage', body: 'Owner: payments team', author: op.username }),
      ]);
      await http()
        .post(`/api/findings/${f}/notes`)
        .set(asOp)
        .send({ stage: 'extract', body: 'x' })
        .expect(400);
      await http()
        .post(`/api/findings/${f}/notes`)
        .set(asOp)
        .send({ stage: 'general', body: '' })
        .expect(400);
      await http()
        .post('/api/findings/999999/notes')
        .set(asOp)
        .send({ stage: 'general', body: 'x' })
        .expect(404);
    });

    it('records a retest with its verdict; the latest verdict is shown and filterable', async () => {
      const f = ids[5];
      const retest = {
        tried: 'Replayed the request with a crafted cookie',
        retestedAt: '2026-01-02T10:00:00Z',
        verdict: 'still_open',
        rationale: 'still reflected',
      };
      await http().post(`/api/findings/${f}/retests`).set(asOp).send(retest).expect(201);
      const fixed = await http()
        .post(`/api/findings/${f}/retests`)
        .set(asOp)
        .send({
          ...retest,
          retestedAt: '2026-01-03T10:00:00Z',
          verdict: 'fixed',
          rationale: 'header now set',
        })
        .expect(201);
      expect(fixed.body.latestVerdict).toMatchObject({
        status: 'fixed',
        actor: 'operator',
        rationale: 'header now set',
      });
      const byVerdict = await http().get('/api/findings').query({ verdict: 'fixed' }).set(asOp).expect(200);
      expect(byVerdict.body.rows.map((r: FindingRow) => r.id)).toEqual([f]);
      expect((await corpusOverview(m())).verdicts).toMatchObject({ fixed: 1, still_open: 0 });
      const history = (await http().get(`/api/findings/${f}/history`).set(asOp).expect(200)).body;
      expect(
        history.retests.map((r: { verdict: string; tried: string; author: string; retestedAt: string }) => [
          r.verdict,
          r.author,
          r.retestedAt,
        ]),
      ).toEqual([
        ['fixed', op.username, '2026-01-03T10:00:00.000Z'],
        ['still_open', op.username, '2026-01-02T10:00:00.000Z'],
      ]);

      await http()
        .post(`/api/findings/${f}/retests`)
        .set(asOp)
        .send({ ...retest, retestedAt: '2999-01-01T00:00:00Z' })
        .expect(400);
      await http()
        .post(`/api/findings/${f}/retests`)
        .set(asOp)
        .send({ ...retest, rationale: '' })
        .expect(400);
      await http()
        .post(`/api/findings/${f}/retests`)
        .set(asOp)
        .send({ ...retest, verdict: 'maybe' })
        .expect(400);
    });
  });

  describe('audit log and report rules', () => {
    it('is for admins only', async () => {
      await http().get('/api/audit').set(asOp).expect(403);
      await http().get('/api/audit').expect(401);
      await http().get('/api/audit').query({ action: 'report.burn' }).set(asAdmin).expect(400);
    });

    it('records imports, status changes, notes and retests with who and before/after, filterable and paged', async () => {
      const [imported] = await audit({ action: 'report.import' });
      expect(imported).toMatchObject({
        actorId: op.id,
        actorName: op.username,
        subjectType: 'report',
        subjectId: String(reportId),
        after: { format: 'zap', findingCount: 6 },
      });
      const status = await audit({ action: 'finding.status', subjectId: String(ids[0]) });
      expect(status.map((e) => [e.before, e.after])).toEqual([
        [{ status: 'false_positive' }, { status: 'open', reason: 'fixture is deployed after all' }],
        [{ status: 'confirmed' }, { status: 'false_positive', reason: 'test fixture only' }],
        [{ status: 'open' }, { status: 'confirmed', reason: null }],
      ]);
      expect((await audit({ actorId: admin.id, action: 'finding.status' })).length).toBe(1);
      expect((await audit({ action: 'finding.retest' })).length).toBe(2);
      expect((await audit({ action: 'finding.note' }))[0].after).toMatchObject({
        stage: 'triage',
        body: 'Owner: payments team',
      });

      const first = await http().get('/api/audit').query({ limit: '2' }).set(asAdmin).expect(200);
      expect(first.body.events).toHaveLength(2);
      const next = await http()
        .get('/api/audit')
        .query({ limit: '2', cursor: first.body.nextCursor })
        .set(asAdmin)
        .expect(200);
      expect(next.body.events[0].id).toBeLessThan(first.body.events[1].id);
      expect(Date.parse(next.body.events[0].createdAt)).toBeLessThanOrEqual(
        Date.parse(first.body.events[1].createdAt),
      );
      await http().get('/api/audit').query({ cursor: '12' }).set(asAdmin).expect(400);
      await http().get('/api/audit').query({ from: 'yesterday' }).set(asAdmin).expect(400);
      const today = new Date().toISOString().slice(0, 10);
      const inRange = await http()
        .get('/api/audit')
        .query({ from: today, limit: '200' })
        .set(asAdmin)
        .expect(200);
      expect(inRange.body.events.length).toBeGreaterThan(0);
      await http()
        .get('/api/audit')
        .query({ to: '2000-01-01' })
        .set(asAdmin)
        .expect(200, { events: [], nextCursor: null });
    });

    it('records settings changes and operator management without secrets', async () => {
      await http()
        .put('/api/settings')
        .set(asAdmin)
        .send({
          backend: 'openai',
          baseUrl: 'http://127.0.0.1:9/v1',
          model: 'qwen3:8b',
          apiKey: 'sk-secret-value',
        })
        .expect(200);
      const [settings] = await audit({ action: 'settings.update' });
      expect(settings).toMatchObject({
        actorId: admin.id,
        before: { backend: 'builtin', apiKeySet: false },
        after: { backend: 'openai', model: 'qwen3:8b', apiKeySet: true },
      });
      expect(JSON.stringify(settings)).not.toContain('sk-secret-value');

      const created = await http()
        .post('/api/operators')
        .set(asAdmin)
        .send({ username: 'carol', displayName: 'Carol', password: 'a-long-password-1', role: 'operator' })
        .expect(201);
      await http()
        .patch(`/api/operators/${created.body.id}`)
        .set(asAdmin)
        .send({ role: 'admin', password: 'another-long-password' })
        .expect(200);
      const events = await audit({ subjectType: 'operator', subjectId: created.body.id });
      expect(events.map((e) => [e.action, e.before, e.after])).toEqual([
        ['operator.update', { role: 'operator' }, { role: 'admin', passwordReset: true }],
        ['operator.create', null, { username: 'carol', displayName: 'Carol', role: 'operator' }],
      ]);
      expect(JSON.stringify(events)).not.toContain('password-');
    });

    it('lets any operator archive (audited) but only an admin delete, and only an archived report', async () => {
      await http().delete(`/api/reports/${reportId}`).set(asOp).expect(403);
      const live = await http().delete(`/api/reports/${reportId}`).set(asAdmin).expect(409);
      expect(live.body.message).toContain('is not archived; archive it first');
      await http().patch(`/api/reports/${reportId}`).set(asOp).send({ archived: true }).expect(200);
      await http().patch(`/api/reports/${reportId}`).set(asOp).send({ archived: true }).expect(200);
      const archives = await audit({ action: 'report.archive' });
      expect(archives).toEqual([
        expect.objectContaining({ actorId: op.id, subjectId: String(reportId), before: { archived: false } }),
      ]);

      await http().delete(`/api/reports/${reportId}`).set(asAdmin).expect(204);
      await http().delete(`/api/reports/${reportId}`).set(asAdmin).expect(404);
      await http().get(`/api/findings/${ids[0]}`).set(asOp).expect(404);
      const [deleted] = await audit({ action: 'report.delete' });
      expect(deleted).toMatchObject({
        actorId: admin.id,
        subjectId: String(reportId),
        before: { filename: 'dd__juicy2.xml', archived: true },
      });
      // The trail outlives the report.
      expect(
        (await audit({ subjectType: 'report', subjectId: String(reportId) })).map((e) => e.action),
      ).toEqual(['report.delete', 'report.archive', 'report.import']);
    });
  });

  // Last: it adds audit events the audit tests above do not expect.
  describe('bidi control characters', () => {
    it('stores notes, edits and thread titles without bidi control characters', async () => {
      const rel = 'scans/nuclei/dd__many_findings_new.jsonl';
      const imported = await importReport(db.dataSource, {
        filename: path.basename(rel),
        bytes: fs.readFileSync(corpusPath(rel)),
      });
      if (!imported.ok) throw new Error(imported.error);
      const [{ id: f }]: { id: number }[] = await db.dataSource.query(
        `SELECT id FROM findings WHERE report_id = $1 ORDER BY id LIMIT 1`,
        [imported.reportId],
      );
      const note = await http()
        .post(`/api/findings/${f}/notes`)
        .set(asOp)
        .send({ stage: 'general', body: 'see \u202Etxt.exe\u202C and \u2066this\u2069' });
      expect([note.status, note.body.message]).toEqual([201, undefined]);
      expect(note.body.notes.at(-1).body).toBe('see txt.exe and this');
      const edit = await http()
        .post(`/api/findings/${f}/versions`)
        .set(asOp)
        .send({ reason: 'typo\u200F', title: 'Reflected \u202Dinput' })
        .expect(201);
      expect(JSON.stringify(edit.body)).not.toMatch(/[\u202A-\u202E\u2066-\u2069\u200E\u200F]/);
      const chat = await http().post('/api/chats').set(asOp).send({ title: 'my \u202Ethread' }).expect(201);
      expect(chat.body.title).toBe('my thread');
    });
  });
});
