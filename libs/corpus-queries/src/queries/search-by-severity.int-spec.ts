import 'reflect-metadata';
/**
 * The page of a text search cut one severity at a time (pageBySeverity): whichever way each
 * severity is read (collected through its text index, in a window of its ids, walked in id order,
 * or walked or windowed too short so the rest is collected), the page equals an independent ORDER BY severity, id over
 * the current versions' own text; the per-severity estimates see how a term is spread; the
 * collect reads the severity's own index.
 */
import { SEVERITIES } from '@corpus-chat/contracts';
import { generateCorpus } from '../generator';
import { createTestDatabase, type TestDatabase } from '../testing';
import { buildFindingWhere, severitySearchVector } from './finding-filter';
import { normaliseFilter } from './query-validation';
import {
  chooseSeverityStep,
  COLLECT_ALL_MAX_MATCHES,
  estimateBySeverity,
  explainBySeverity,
  forgetSeverityShares,
  liveSeverityShares,
  pageBySeverity,
  SEVERITY_SHARE_TTL_MS,
  searchFindings,
  severityStepSql,
  type SeverityEstimate,
  type SeverityStep,
} from './search-findings';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await generateCorpus(db.dataSource, { findings: 10_000, findingsPerReport: 1000, seed: 11 });
}, 120_000);
afterAll(async () => {
  await db?.drop();
});

/** Independent: live findings whose current version (max version) matches `text`, most severe first, then id. */
async function expectedIds(text: string): Promise<number[]> {
  const rows: { id: number }[] = await db.dataSource.query(
    `SELECT f.id FROM findings f
     JOIN finding_versions fv ON fv.finding_id = f.id
       AND fv.version = (SELECT max(x.version) FROM finding_versions x WHERE x.finding_id = f.id)
     LEFT JOIN reports r ON r.id = f.report_id
     WHERE NOT coalesce(r.archived, false)
       AND to_tsvector('english', coalesce(fv.title,'') || ' ' || coalesce(fv.description,'') || ' ' || coalesce(fv.impact,'') || ' ' || coalesce(fv.attack_vector,''))
           @@ websearch_to_tsquery('english', $1)
     ORDER BY array_position(ARRAY['critical','high','medium','low','info'], fv.severity::text), f.id`,
    [text],
  );
  return rows.map((r) => r.id);
}

const TERMS = [
  'ldap',
  'cookie',
  'application',
  'deserialization',
  'session cookie',
  '"directory search" -ldap',
  'nosuchword',
];

test.each(TERMS)('"%s": every way of reading a severity gives the independent page', async (text) => {
  const m = db.dataSource.manager;
  const where = await buildFindingWhere(m, normaliseFilter({ text }));
  const expected = await expectedIds(text);
  const real = await estimateBySeverity(m, where);
  expect(real.map((e) => e.severity)).toEqual([...SEVERITIES]);

  // Each way forced for every severity: collect all; walk with a generous bound and with a bound
  // far too small (the rest is collected after it); a window over the first 30 % of the severity's
  // ids and one holding only its first finding (the rest is collected after it).
  const forced: Record<string, (e: SeverityEstimate, need: number) => SeverityStep> = {
    chosen: chooseSeverityStep,
    collect: (e, need) => ({ way: 'collect', severity: e.severity, need, afterId: 0 }),
    walk: (e, need) => ({ way: 'walk', severity: e.severity, need, bound: Math.ceil(e.findings) + 100 }),
    'walk too short': (e, need) => ({ way: 'walk', severity: e.severity, need, bound: 1 }),
    window: (e, need) => ({
      way: 'collect',
      severity: e.severity,
      need,
      afterId: 0,
      upToId: Math.round(e.minId + 0.3 * (e.maxId - e.minId)),
    }),
    'window too short': (e, need) => ({
      way: 'collect',
      severity: e.severity,
      need,
      afterId: 0,
      upToId: e.minId,
    }),
  };
  for (const limit of [1, 7, 50]) {
    for (const [name, choose] of Object.entries(forced)) {
      const page = await pageBySeverity(m, where, limit, real, choose);
      expect({ name, limit, ids: page.map((r) => r.id) }).toEqual({
        name,
        limit,
        ids: expected.slice(0, limit),
      });
    }
  }
  const result = await searchFindings(m, { text, limit: 50 }, { cache: false });
  expect(result.total).toBe(expected.length);
  expect(result.rows.map((r) => r.id)).toEqual(expected.slice(0, 50));
  // "application" (~45 %) is estimated above the collect-everything limit, so searchFindings itself
  // took the per-severity path here; the rarer terms took the one-statement collect.
  const estimated = real.reduce((n, e) => n + e.matches, 0);
  if (text === 'application') expect(estimated).toBeGreaterThan(COLLECT_ALL_MAX_MATCHES);
  if (text === 'ldap') expect(estimated).toBeLessThan(COLLECT_ALL_MAX_MATCHES);
});

test('the estimates see a term concentrated in low-severity findings as rare among critical ones', async () => {
  const m = db.dataSource.manager;
  const where = await buildFindingWhere(m, normaliseFilter({ text: 'cookie' }));
  const estimated = await estimateBySeverity(m, where);
  const actual: { severity: string; share: number }[] = await m.query(
    `SELECT f.severity::text AS severity, avg((${where.sql})::int)::float8 AS share FROM findings f WHERE NOT f.archived GROUP BY 1`,
    where.params.values,
  );
  const shareOf = (s: string) => actual.find((a) => a.severity === s)!.share;
  const estimate = (s: string) => {
    const e = estimated.find((x) => x.severity === s)!;
    return e.matches / e.findings;
  };
  // The generator puts cookie findings at medium/low/info and mentions a cookie in ~3.5 % of the others.
  expect(shareOf('low')).toBeGreaterThan(3 * shareOf('critical'));
  expect(estimate('low')).toBeGreaterThan(3 * estimate('critical'));
  for (const s of ['critical', 'low']) expect(estimate(s)).toBeLessThan(2 * shareOf(s));
});

test('a weakness class widened by CWE ids keeps each severity to its own findings', async () => {
  const m = db.dataSource.manager;
  const where = await buildFindingWhere(m, normaliseFilter({ text: 'SQL injection' }));
  expect(where.applied.weaknessClasses?.length).toBeGreaterThan(0);
  const real = await estimateBySeverity(m, where);
  const [{ n }]: { n: number }[] = await m.query(
    `SELECT count(*)::int AS n FROM findings f WHERE ${where.sql}`,
    where.params.values,
  );
  const page = await pageBySeverity(m, where, 50, real, (e, need) => ({
    way: 'collect',
    severity: e.severity,
    need,
    afterId: 0,
  }));
  const expected: { id: number }[] = await m.query(
    `SELECT f.id FROM findings f WHERE ${where.sql} ORDER BY f.severity, f.id LIMIT 50`,
    where.params.values,
  );
  expect(page.map((r) => r.id)).toEqual(expected.map((r) => r.id));
  expect(page.length).toBe(Math.min(50, n));
});

test('collecting one severity reads that severity’s own text index', async () => {
  const m = db.dataSource.manager;
  const where = await buildFindingWhere(m, normaliseFilter({ text: 'ldap' }));
  const plan: { 'QUERY PLAN': string }[] = await m.query(
    `EXPLAIN SELECT f.id FROM findings f WHERE ${where.sqlWith({ vector: severitySearchVector('high'), cwe: 'f.cwe' })}`,
    where.params.values,
  );
  expect(plan.map((r) => r['QUERY PLAN']).join('\n')).toContain('ix_findings_search_high');
});

test('estimates keep severity order when the planner would rather run the branches in parallel', async () => {
  const where = await buildFindingWhere(db.dataSource.manager, normaliseFilter({ text: 'XSS' }));
  const serial = await estimateBySeverity(db.dataSource.manager, where);
  // Parallel plans made free and index scans off: without a guard the planner picks a Parallel
  // Append, which reorders the branches by cost and reports rows per process.
  const parallel = await db.dataSource.transaction(async (tx) => {
    for (const setting of [
      'parallel_setup_cost = 0',
      'parallel_tuple_cost = 0',
      'min_parallel_table_scan_size = 0',
      'enable_bitmapscan = off',
      'enable_indexscan = off',
    ]) {
      await tx.query(`SET LOCAL ${setting}`);
    }
    return estimateBySeverity(tx, where);
  });
  expect(parallel.map((e) => e.severity)).toEqual([...SEVERITIES]);
  // Same estimates in the same order (a sequential scan estimates the same selectivity).
  expect(parallel.map((e) => Math.round(e.matches))).toEqual(serial.map((e) => Math.round(e.matches)));
});

test('a weakness class collects one severity through that severity’s text and CWE indexes', async () => {
  const m = db.dataSource.manager;
  const where = await buildFindingWhere(m, normaliseFilter({ text: 'XSS' }));
  const { sql, params } = severityStepSql(where, {
    way: 'collect',
    severity: 'medium',
    need: 50,
    afterId: 0,
  });
  const plan = (await m.query(`EXPLAIN ${sql}`, params))
    .map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN'])
    .join('\n');
  expect(plan).toContain('ix_findings_search_medium');
  expect(plan).toContain('ix_findings_cwe_medium');
});

test.each([
  'ldap',
  'cookie',
  'application',
  'session cookie',
  '"directory search" -ldap',
  'cookie or ldap',
  'nosuchword',
  'the',
  'XSS',
  'SQL injection',
])('"%s": the in-process estimate per severity is the planner’s own', async (text) => {
  const m = db.dataSource.manager;
  const where = await buildFindingWhere(m, normaliseFilter({ text }));
  expect(where.liveTextOnly).toBe(true);
  const inProcess = await estimateBySeverity(m, where);
  const planner = await explainBySeverity(m, where);
  expect(inProcess.map((e) => e.severity)).toEqual([...SEVERITIES]);
  for (const [i, e] of inProcess.entries()) {
    // The planner rounds each branch's rows and never estimates fewer than one.
    expect({ severity: e.severity, matches: Math.max(1, Math.round(e.matches)) }).toEqual({
      severity: planner[i].severity,
      matches: expect.closeTo(planner[i].matches, -0.5) as number,
    });
  }
});

test('a filter with more than live findings and text is estimated by EXPLAIN', async () => {
  const m = db.dataSource.manager;
  const where = await buildFindingWhere(m, normaliseFilter({ text: 'cookie', verdict: 'fixed' }));
  expect(where.liveTextOnly).toBe(false);
  expect(await estimateBySeverity(m, where)).toEqual(await explainBySeverity(m, where));
});

test('a phrase’s tsquery is read once: a repeated text search is estimated without a statement', async () => {
  const m = db.dataSource.manager;
  const sent: string[] = [];
  const query = m.query.bind(m);
  m.query = ((sql: string, params?: unknown[]) => (sent.push(sql), query(sql, params))) as typeof m.query;
  try {
    const kerberos = await buildFindingWhere(m, normaliseFilter({ text: 'kerberos ticket' }));
    const first = await estimateBySeverity(m, kerberos);
    expect(sent.filter((s) => s.includes('websearch_to_tsquery'))).toHaveLength(1);
    sent.length = 0;
    expect(await estimateBySeverity(m, kerberos)).toEqual(first);
    expect(sent).toEqual([]);
    // A weakness class searches its name and its aliases: its phrases not seen yet go in one statement, once.
    const traversal = await buildFindingWhere(m, normaliseFilter({ text: 'directory traversal' }));
    expect(traversal.search?.phrases.length).toBeGreaterThan(1);
    sent.length = 0;
    await estimateBySeverity(m, traversal);
    const tsqueries = sent.filter((s) => s.includes('websearch_to_tsquery'));
    expect(tsqueries).toHaveLength(1);
    sent.length = 0;
    await estimateBySeverity(m, traversal);
    expect(sent).toEqual([]);
  } finally {
    m.query = query;
  }
  // What was kept is what the planner itself estimates from.
  const again = await buildFindingWhere(m, normaliseFilter({ text: 'kerberos ticket' }));
  const planner = await explainBySeverity(m, again);
  for (const [i, e] of (await estimateBySeverity(m, again)).entries()) {
    expect(Math.max(1, Math.round(e.matches))).toBeCloseTo(planner[i].matches, -0.5);
  }
});

test('severity shares past their age are served at once and refreshed in the background on the pool, not on the caller’s transaction', async () => {
  const ds = db.dataSource;
  let now = Date.now();
  const clock = jest.spyOn(Date, 'now').mockImplementation(() => now);
  try {
    forgetSeverityShares(ds);
    const kept = await liveSeverityShares(ds.manager);
    now += SEVERITY_SHARE_TTL_MS + 1000;
    const onCaller: string[] = [];
    const served = await ds.transaction(async (tx) => {
      const query = tx.query.bind(tx);
      tx.query = ((sql: string, params?: unknown[]) => (
        onCaller.push(sql),
        query(sql, params)
      )) as typeof tx.query;
      return liveSeverityShares(tx);
    });
    expect(served).toBe(kept);
    expect(onCaller).toEqual([]);
    // The refresh lands: a later call gets a new value with the same figures (nothing changed).
    let fresh = served;
    for (let i = 0; i < 100 && fresh === kept; i++) {
      await new Promise((r) => setTimeout(r, 20));
      fresh = await liveSeverityShares(ds.manager);
    }
    expect(fresh).not.toBe(kept);
    expect(fresh.bySeverity).toEqual(kept.bySeverity);
  } finally {
    clock.mockRestore();
  }
});
