import 'reflect-metadata';
/**
 * Each query function against an independent SQL count written here: current versions found by
 * max(version) (not through the denormalised columns on findings), archived reports joined by hand,
 * full-text search computed from the version's text, weakness classes read from shared/corpus.
 * Fixtures cover a finding edited twice, an archived report, findings with no CWE, a finding with no
 * report, text with quotes and %/_, and bad filter values.
 */
import fs from 'node:fs';
import path from 'node:path';
import { SEVERITIES, type Severity } from '@corpus-chat/contracts';
import { importReport, insertFindings, scannerFinding } from '@corpus-chat/ingest';
import { createTestDatabase, type TestDatabase } from '@corpus-chat/persistence/testing';
import { importCorpusFiles, sharedDir } from '@corpus-chat/ingest/testing';
import { setReportArchived } from './archive-report';
import { corpusOverview } from './corpus-overview';
import { countFindingsBy } from './count-findings-by';
import { findingDetail } from './finding-detail';
import { listReports } from './list-reports';
import { QueryValidationError } from './query-validation';
import { runReadOnly } from './read-only';
import { searchFindings } from './search-findings';

let db: TestDatabase;
const ids: Record<string, number> = {};

const native = (findings: unknown[]) =>
  Buffer.from(JSON.stringify({ format: 'corpus-chat-native', format_version: 1, findings }));

beforeAll(async () => {
  db = await createTestDatabase();
  const outcomes = await importCorpusFiles(db.dataSource, [
    'scans/trivy/scb__juice-shop-v12.10.2.json',
    'scans/zap/dd__zap-results-first-scan.xml',
    'scans/sarif/sechub__brakeman.sarif.json',
    'scans/sarif/dd__codeQL-output.sarif',
    'scans/nuclei/dd__issue_14071.jsonl',
  ]);
  expect(outcomes.every((o) => o.ok)).toBe(true);

  const a = await importReport(db.dataSource, {
    filename: 'Fixtures-A.json',
    bytes: native([
      {
        versions: [
          {
            title: 'Reflected XSS in search',
            severity: 'low',
            description: 'reflected payload',
            cwe: [79],
            created_at: '2025-01-01T00:00:00Z',
          },
          {
            title: 'Reflected XSS in search',
            severity: 'medium',
            description: 'reflected payload, confirmed',
            cwe: [79],
            edited_by: 'a',
            reason: 'r1',
          },
          {
            title: 'Stored cross-site scripting in comments',
            severity: 'high',
            description: 'stored in the comment body',
            cwe: [79, 80],
            edited_by: 'b',
            reason: 'r2',
          },
        ],
        notes: [
          { stage: 'goal', body: 'n1' },
          { stage: 'retest', body: 'n2' },
        ],
        verdicts: [
          { status: 'still_open', actor: 'agent', created_at: '2025-02-01T00:00:00Z' },
          { status: 'fixed', actor: 'operator', created_at: '2025-03-01T00:00:00Z' },
        ],
      },
      {
        versions: [
          {
            title: `The "O'Brien" 100% of_user_ list leaks`,
            severity: 'info',
            description: "it's 50% _done_",
          },
        ],
      },
      {
        versions: [{ title: 'SQL injection in login form', severity: 'critical', cwe: [89] }],
        verdicts: [{ status: 'inconclusive', actor: 'agent' }],
      },
      { versions: [{ title: 'Hardcoded passwords in deployment config', severity: 'medium' }] },
      { versions: [{ title: 'Old jQuery version', severity: 'low', cwe: [1104] }] },
      {
        versions: [
          { title: 'jQuery prototype pollution', severity: 'high', description: 'jQuery extend' },
          {
            title: 'Outdated library',
            severity: 'low',
            description: 'a front-end library is out of date',
            edited_by: 'c',
            reason: 'rewrite',
          },
        ],
      },
    ]),
  });
  const b = await importReport(db.dataSource, {
    filename: 'fixtures-b-archived.json',
    bytes: native([
      {
        versions: [{ title: 'SQL injection in admin panel', severity: 'high', cwe: [89] }],
        verdicts: [{ status: 'fixed', actor: 'agent' }],
      },
      { versions: [{ title: 'Cross-site scripting in profile', severity: 'medium', cwe: [79] }] },
    ]),
  });
  if (!a.ok || !b.ok) throw new Error(`fixture import failed: ${JSON.stringify([a, b])}`);
  ids['a'] = a.reportId;
  ids['b'] = b.reportId;
  expect((await setReportArchived(db.dataSource.manager, b.reportId, true)).status).toBe('ok');
  // A finding entered by hand: no report.
  const [manual] = await db.dataSource.transaction((tx) =>
    insertFindings(tx, null, [
      scannerFinding({
        title: 'Manual SQLi note',
        severity: 'high',
        description: 'found by hand',
        raw: null,
      }),
    ]),
  );
  ids['manual'] = manual;
  const [edited] = await db.dataSource.query(
    `SELECT f.id FROM findings f WHERE f.report_id = $1 ORDER BY f.id LIMIT 1`,
    [a.reportId],
  );
  ids['edited'] = edited.id;
}, 60_000);

afterAll(async () => {
  await db?.drop();
});

const classes: { name: string; aliases: string[]; cwe: number[] }[] = JSON.parse(
  fs.readFileSync(path.join(sharedDir(), 'corpus', 'weakness-classes.json'), 'utf8'),
).classes;

/** The texts under test and, written by hand, the classes each one names. */
const TEXTS: [string | undefined, string[]][] = [
  [undefined, []],
  ['SQL injections', ['SQL injection']],
  ['sqli', ['SQL injection']],
  ['XSS', ['cross-site scripting']],
  ['cross site scripting', ['cross-site scripting']],
  ['hardcoded passwords', ['hard-coded credentials']],
  ['jQuery', []],
  ['Reflected', []],
  [`"O'Brien" 100%`, []],
  ['of_user_', []],
  ['%', []],
  ["it's", []],
  ['cookies', []],
  ['"prototype pollution"', []],
];

/** Independent SQL: current version by max(version), archived via the report, text from the version's own columns. */
function independent(
  text: string | undefined,
  classNames: string[],
  opts: { severity?: Severity; includeArchived?: boolean; reportId?: number },
) {
  const params: unknown[] = [];
  const cond: string[] = [
    'fv.version = (SELECT max(x.version) FROM finding_versions x WHERE x.finding_id = fv.finding_id)',
  ];
  if (!opts.includeArchived) cond.push('NOT coalesce(r.archived, false)');
  if (text !== undefined) {
    const doc = `to_tsvector('english', coalesce(fv.title,'') || ' ' || coalesce(fv.description,'') || ' ' || coalesce(fv.impact,'') || ' ' || coalesce(fv.attack_vector,''))`;
    const phrases = [
      text,
      ...classes.filter((c) => classNames.includes(c.name)).flatMap((c) => [c.name, ...c.aliases]),
    ];
    const ors = phrases.map((p) => {
      params.push(p);
      return `${doc} @@ websearch_to_tsquery('english', $${params.length})`;
    });
    const cwe = classes.filter((c) => classNames.includes(c.name)).flatMap((c) => c.cwe);
    if (cwe.length) {
      params.push(cwe);
      ors.push(`fv.cwe && $${params.length}::int[]`);
    }
    cond.push(`(${ors.join(' OR ')})`);
  }
  if (opts.severity) {
    params.push(opts.severity);
    cond.push(`fv.severity::text = $${params.length}`);
  }
  if (opts.reportId) {
    params.push(opts.reportId);
    cond.push(`f.report_id = $${params.length}`);
  }
  const from = `FROM finding_versions fv JOIN findings f ON f.id = fv.finding_id LEFT JOIN reports r ON r.id = f.report_id
    WHERE ${cond.join(' AND ')}`;
  const latestVerdict = `(SELECT v.status FROM verdicts v WHERE v.finding_id = f.id ORDER BY v.created_at DESC, v.id DESC LIMIT 1)`;
  const q = <T>(sql: string): Promise<T[]> => db.dataSource.query(sql, params);
  return {
    ids: () =>
      q<{ id: number }>(
        `SELECT f.id ${from} ORDER BY array_position(ARRAY['critical','high','medium','low','info'], fv.severity::text), f.id`,
      ).then((r) => r.map((x) => x.id)),
    bySeverity: () =>
      q<{ k: string; n: number }>(`SELECT fv.severity::text AS k, count(*)::int AS n ${from} GROUP BY 1`),
    byReport: () =>
      q<{ k: string; n: number }>(
        `SELECT coalesce(f.report_id::text, 'none') AS k, count(*)::int AS n ${from} GROUP BY 1`,
      ),
    byCwe: () =>
      q<{ k: string; n: number }>(
        `SELECT coalesce(c::text, 'none') AS k, count(*)::int AS n ${from.replace('WHERE', 'LEFT JOIN LATERAL unnest(fv.cwe) c ON true WHERE')} GROUP BY 1`,
      ),
    byVerdict: () =>
      q<{ k: string; n: number }>(
        `SELECT coalesce(${latestVerdict}, 'none') AS k, count(*)::int AS n ${from} GROUP BY 1`,
      ),
  };
}

const asMap = (rows: { k: string; n: number }[]) => Object.fromEntries(rows.map((r) => [r.k, r.n]));
const nonZero = (groups: { key: string; count: number }[]) =>
  Object.fromEntries(groups.filter((g) => g.count > 0).map((g) => [g.key, g.count]));

const cases = TEXTS.flatMap(([text, cls]) =>
  ([undefined, 'high', 'low'] as (Severity | undefined)[]).flatMap((severity) =>
    [false, true].map(
      (includeArchived) =>
        [
          `${text ?? '(no text)'} | ${severity ?? 'any'} | archived ${includeArchived}`,
          text,
          cls,
          severity,
          includeArchived,
        ] as const,
    ),
  ),
);

test.each(cases)(
  '%s: searchFindings and countFindingsBy equal the independent SQL',
  async (_name, text, cls, severity, includeArchived) => {
    const m = db.dataSource.manager;
    const filter = { text, severity, includeArchived };
    const ref = independent(text, cls, { severity, includeArchived });
    const expectedIds = await ref.ids();

    const page = await searchFindings(m, { ...filter, limit: 50 });
    expect(page.total).toBe(expectedIds.length);
    expect(page.rows.map((r) => r.id)).toEqual(expectedIds.slice(0, 50));
    expect(page.filter.weaknessClasses?.map((c) => c.name) ?? []).toEqual(cls);

    const second = await searchFindings(m, { ...filter, limit: 5, offset: 3 });
    expect(second.total).toBe(expectedIds.length);
    expect(second.rows.map((r) => r.id)).toEqual(expectedIds.slice(3, 8));

    const sev = await countFindingsBy(m, { groupBy: 'severity', filter });
    expect(nonZero(sev.groups)).toEqual(asMap(await ref.bySeverity()));
    expect(sev.groups.map((g) => g.key).sort()).toEqual([...SEVERITIES].sort());
    expect(sev.total).toBe(expectedIds.length);
    const rep = await countFindingsBy(m, { groupBy: 'report', filter });
    expect(nonZero(rep.groups)).toEqual(asMap(await ref.byReport()));
    const cwe = await countFindingsBy(m, { groupBy: 'cwe', filter });
    expect(nonZero(cwe.groups)).toEqual(asMap(await ref.byCwe()));
    expect(cwe.total).toBe(expectedIds.length);
    const ver = await countFindingsBy(m, { groupBy: 'verdict', filter });
    expect(nonZero(ver.groups)).toEqual(asMap(await ref.byVerdict()));
    for (const g of [sev, rep, cwe, ver]) {
      for (let i = 1; i < g.groups.length; i++)
        expect(g.groups[i - 1].count).toBeGreaterThanOrEqual(g.groups[i].count);
    }
  },
);

test('the same question through runReadOnly gives the same answer, and writes are refused there', async () => {
  const direct = await searchFindings(
    db.dataSource.manager,
    { text: 'XSS', severity: 'high' },
    { cache: false },
  );
  const ro = await runReadOnly(db.dataSource, (m) =>
    searchFindings(m, { text: 'XSS', severity: 'high' }, { cache: false }),
  );
  expect(ro).toEqual(direct);
  await expect(
    runReadOnly(db.dataSource, (m) => m.query(`UPDATE reports SET archived = true`)),
  ).rejects.toThrow(/read-only transaction/);
  const [row] = await db.dataSource.query(`SELECT count(*)::int AS n FROM reports WHERE archived`);
  expect(row.n).toBe(1);
});

test('runReadOnly answers from one snapshot: a finding committed meanwhile is not seen halfway', async () => {
  const text = 'snapshotprobe';
  const result = await runReadOnly(db.dataSource, async (m) => {
    const [{ level }] = await m.query(`SELECT current_setting('transaction_isolation') AS level`);
    const before = await searchFindings(m, { text, limit: 50 }, { cache: false });
    // Another connection commits a matching finding while the transaction is open.
    const [added] = await db.dataSource.transaction((tx) =>
      insertFindings(tx, null, [
        scannerFinding({ title: `Probe ${text}`, severity: 'critical', description: text, raw: null }),
      ]),
    );
    const after = await searchFindings(m, { text, limit: 50 }, { cache: false });
    return { level, before, after, added };
  });
  expect(result.level).toBe('repeatable read');
  expect(result.after.total).toBe(result.before.total);
  expect(result.after.rows).toEqual(result.before.rows);
  // Outside, the new finding is there.
  const now = await searchFindings(db.dataSource.manager, { text, limit: 50 }, { cache: false });
  expect(now.rows.map((r) => r.id)).toContain(result.added);
  await db.dataSource.query(`DELETE FROM findings WHERE id = $1`, [result.added]);
});

test('only the newest version of an edited finding counts', async () => {
  const m = db.dataSource.manager;
  const reflected = await searchFindings(m, { text: 'Reflected', reportId: ids['a'] });
  expect(reflected.total).toBe(0);
  const stored = await searchFindings(m, { text: 'stored comment', reportId: ids['a'] });
  expect(stored.rows.map((r) => r.id)).toEqual([ids['edited']]);
  expect(stored.rows[0]).toMatchObject({
    severity: 'high',
    cwe: [79, 80],
    latestVerdict: 'fixed',
    reportFilename: 'Fixtures-A.json',
  });
  const detail = await findingDetail(m, ids['edited']);
  expect(detail).toMatchObject({
    found: true,
    finding: {
      versionCount: 3,
      current: { version: 3, origin: 'edit', editedBy: 'b', reason: 'r2' },
      latestVerdict: { status: 'fixed' },
    },
  });
  if (detail.found) expect(detail.finding.notes.map((n) => n.body)).toEqual(['n1', 'n2']);
  expect((await searchFindings(m, { text: 'jQuery', reportName: 'fixtures-a.JSON' })).total).toBe(1);
});

test('reportName is matched case-insensitively; archived reports only with includeArchived', async () => {
  const m = db.dataSource.manager;
  const r = await searchFindings(m, { reportName: 'FIXTURES-A.json', limit: 0 });
  expect(r.total).toBe(6);
  expect(r.filter).toMatchObject({ reportFilename: 'Fixtures-A.json', reportId: ids['a'] });
  await expect(searchFindings(m, { reportName: 'fixtures-b-archived.json' })).rejects.toMatchObject({
    field: 'reportName',
    message: expect.stringMatching(/archived/),
  });
  expect(
    (await searchFindings(m, { reportName: 'fixtures-b-archived.json', includeArchived: true })).total,
  ).toBe(2);
  expect((await searchFindings(m, { reportId: ids['b'] })).total).toBe(0);
  expect((await searchFindings(m, { reportId: ids['b'], includeArchived: true })).total).toBe(2);
  await expect(searchFindings(m, { reportName: 'nope.sarif' })).rejects.toMatchObject({
    field: 'reportName',
  });
  await expect(searchFindings(m, { reportId: 999999 })).rejects.toMatchObject({ field: 'reportId' });
});

test('bad filter values are validation errors naming the field, never SQL errors', async () => {
  const m = db.dataSource.manager;
  const bad: [Record<string, unknown>, string][] = [
    [{ severity: 'urgent' }, 'severity'],
    [{ severity: 'high; DROP TABLE findings' }, 'severity'],
    [{ cwe: 'CWE-abc' }, 'cwe'],
    [{ cwe: -3 }, 'cwe'],
    [{ reportId: 1.5 }, 'reportId'],
    [{ verdict: 'closed' }, 'verdict'],
    [{ limit: 51 }, 'limit'],
    [{ offset: -1 }, 'offset'],
    [{ query: 'xss' }, 'query'],
    [{ text: 42 }, 'text'],
  ];
  for (const [args, field] of bad) {
    const e = await searchFindings(m, args as never).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(QueryValidationError);
    expect(e).toMatchObject({ field, message: expect.stringContaining(field) });
  }
  await expect(countFindingsBy(m, { groupBy: 'colour' as never })).rejects.toMatchObject({
    field: 'groupBy',
  });
  await expect(findingDetail(m, 0)).rejects.toMatchObject({ field: 'id' });
  expect(await findingDetail(m, 987654)).toEqual({ found: false, id: 987654 });
  // Accepted spellings: upper-case severity, CWE-79, numeric strings.
  const a = await searchFindings(m, {
    severity: 'HIGH' as Severity,
    cwe: 'CWE-79' as never,
    limit: '3' as never,
  });
  const b = await searchFindings(m, { severity: 'high', cwe: 79, limit: 3 });
  expect(a).toEqual(b);
});

test('corpusOverview and listReports equal the independent SQL', async () => {
  const m = db.dataSource.manager;
  const overview = await corpusOverview(m);
  const live = independent(undefined, [], {});
  const bySev = asMap(await live.bySeverity());
  for (const s of SEVERITIES) expect(overview.findings.bySeverity[s]).toBe(bySev[s] ?? 0);
  expect(overview.findings.total).toBe((await live.ids()).length);
  const verdicts = asMap(await live.byVerdict());
  expect(overview.verdicts).toEqual({
    still_open: verdicts['still_open'] ?? 0,
    fixed: verdicts['fixed'] ?? 0,
    inconclusive: verdicts['inconclusive'] ?? 0,
  });
  const [reports] = await db.dataSource.query(`SELECT count(*)::int AS n FROM reports WHERE NOT archived`);
  expect(overview.reports.total).toBe(reports.n);
  expect(overview.reports.byStatus.ready).toBe(reports.n);

  for (const includeArchived of [false, true]) {
    const list = await listReports(m, { includeArchived });
    const [n] = await db.dataSource.query(`SELECT count(*)::int AS n FROM reports WHERE $1 OR NOT archived`, [
      includeArchived,
    ]);
    expect(list).toHaveLength(n.n);
    for (const r of list) {
      const perReport = asMap(
        await independent(undefined, [], { reportId: r.id, includeArchived: true }).bySeverity(),
      );
      for (const s of SEVERITIES) expect(r.bySeverity[s]).toBe(perReport[s] ?? 0);
      expect(r.findingCount).toBe(Object.values(perReport).reduce((a, b) => a + b, 0));
      const fromOverview = overview.perReport.find((p) => p.id === r.id);
      if (!r.archived) expect(fromOverview?.bySeverity).toEqual(r.bySeverity);
      else expect(fromOverview).toBeUndefined();
    }
  }
});

test('a repeated call is served from the cache until the corpus changes', async () => {
  const m = db.dataSource.manager;
  // Counted in statements, not milliseconds: a loaded machine slows both paths alike.
  const statements = jest.spyOn(m, 'query');
  const first = await searchFindings(m, { text: 'glibc' });
  const uncached = statements.mock.calls.length;
  statements.mockClear();
  const again = await searchFindings(m, { text: 'glibc' });
  const cached = statements.mock.calls.length;
  statements.mockRestore();
  expect(again).toEqual(first);
  expect(uncached).toBeGreaterThan(1);
  expect(cached).toBeLessThanOrEqual(1); // at most the check that the corpus did not change
  // Mutating a returned result does not change what the next caller gets.
  again.rows.length = 0;
  expect((await searchFindings(m, { text: 'glibc' })).rows).toEqual(first.rows);

  const outcome = await importCorpusFiles(db.dataSource, ['scans/trivy/dd__legacy_many_vulns.json']);
  expect(outcome[0].ok).toBe(true);
  const after = await searchFindings(m, { text: 'glibc' });
  const ref = await independent('glibc', [], {}).ids();
  expect(after.total).toBe(ref.length);
  expect(after.total).toBeGreaterThan(first.total);
});

test('finding_severity_counts stays equal to a live count through edits, archiving and deletes', async () => {
  const live = async () =>
    asMap(
      await db.dataSource.query(
        `SELECT coalesce(report_id, 0) || ':' || severity AS k, count(*)::int AS n FROM findings GROUP BY 1`,
      ),
    );
  const kept = async () =>
    asMap(
      await db.dataSource.query(
        `SELECT report_key || ':' || severity AS k, findings::int AS n FROM finding_severity_counts WHERE findings > 0`,
      ),
    );
  expect(await kept()).toEqual(await live());

  // An edit: a new version becomes current with another severity.
  await db.dataSource.transaction(async (tx) => {
    const [v] = await tx.query(
      `INSERT INTO finding_versions (finding_id, version, origin, title, severity, description)
       SELECT id, 2, 'edit', 'Manual SQLi note (confirmed)', 'critical', 'confirmed' FROM findings WHERE id = $1 RETURNING id`,
      [ids['manual']],
    );
    await tx.query(`UPDATE findings SET current_version_id = $2, severity = 'critical' WHERE id = $1`, [
      ids['manual'],
      v.id,
    ]);
  });
  expect(await kept()).toEqual(await live());
  expect(
    (await countFindingsBy(db.dataSource.manager, { groupBy: 'report', filter: { severity: 'critical' } }))
      .groups,
  ).toContainEqual({
    key: 'none',
    label: '(no report: entered by hand)',
    count: 1,
  });
  // Versions are append-only.
  await expect(
    db.dataSource.query(`UPDATE finding_versions SET title = 'x' WHERE finding_id = $1`, [ids['manual']]),
  ).rejects.toThrow(/append-only/);

  await setReportArchived(db.dataSource.manager, ids['a'], true);
  await setReportArchived(db.dataSource.manager, ids['a'], false);
  await db.dataSource.query(`DELETE FROM reports WHERE id = $1`, [ids['b']]);
  expect(await kept()).toEqual(await live());
  const overview = await corpusOverview(db.dataSource.manager);
  const ref = asMap(await independent(undefined, [], {}).bySeverity());
  for (const s of SEVERITIES) expect(overview.findings.bySeverity[s]).toBe(ref[s] ?? 0);
});
