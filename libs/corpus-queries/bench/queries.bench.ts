/**
 * `npm run bench:queries -- [--sizes=100000,1000000] [--quick] [--keep] [--reuse] [--iterations=N]`
 *
 * Per size: (re)creates `corpus_chat_bench` (BENCH_DATABASE_URL), migrates, generates that many
 * findings and prints p50/p95 of the query functions with their plans (docs/benchmarks.md).
 * --keep leaves the database; --reuse measures a kept one of the right size. Results also go to
 * bench/results/queries-<size>.json.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import type { DataSource, EntityManager } from 'typeorm';
import { createDataSource } from '@corpus-chat/persistence';
import { generateCorpus } from '@corpus-chat/ingest';
import { buildFindingWhere } from '../src/queries/finding-filter';
import { normaliseFilter } from '../src/queries/query-validation';
import { countMatching, findingRows, searchFindings } from '../src/queries/search-findings';
import { countFindingsBy } from '../src/queries/count-findings-by';
import { corpusOverview } from '../src/queries/corpus-overview';
import { runReadOnly } from '../src/queries/read-only';

const args = new Map(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, '').split('=');
    return [k, v ?? 'true'] as const;
  }),
);
const quick = args.has('quick');
const sizes = (args.get('sizes') ?? (quick ? '100000' : '100000,1000000'))
  .split(',')
  .map((s) => Number(s.trim()));
const iterations = Number(args.get('iterations') ?? (quick ? 15 : 100));
const keep = args.has('keep') || args.has('reuse');
const reuse = args.has('reuse');
const CACHED_ITERATIONS = 400;
const benchUrl = process.env['BENCH_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/corpus_chat_bench';
const TERMS = {
  rare: 'ldap',
  common: 'cookie',
  'very common': 'application',
  'class-widened (XSS)': 'XSS',
} as const;

/**
 * Busy and total CPU ticks of the machine so far (/proc/stat), or undefined off Linux. Time waiting
 * for I/O counts as busy (the writeback this waits out shows there).
 */
function cpuTicks(): { busy: number; total: number } | undefined {
  try {
    const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const total = f.slice(0, 8).reduce((a, b) => a + b, 0); // user … steal (guest time is inside user)
    return { busy: total - f[3], total };
  } catch {
    return undefined;
  }
}

/**
 * Waits (≤ 60 s) until all cores are under 15 % busy for two half-second windows: right after the
 * bulk load, write-back and autovacuum would move the measured queries by 10–20 %.
 */
async function waitForQuietMachine(): Promise<
  { quiet: boolean; waitedSeconds: number; busyShare: number } | undefined
> {
  const started = Date.now();
  let quiet = 0;
  let last = cpuTicks();
  if (!last) return undefined;
  let share = 1;
  while (quiet < 2 && Date.now() - started < 60_000) {
    await new Promise((r) => setTimeout(r, 500));
    const now = cpuTicks()!;
    share = (now.busy - last.busy) / Math.max(now.total - last.total, 1);
    last = now;
    quiet = share < 0.15 ? quiet + 1 : 0;
  }
  const waitedSeconds = (Date.now() - started) / 1000;
  console.log(
    `  machine ${quiet >= 2 ? 'quiet' : 'still busy'} after ${waitedSeconds.toFixed(1)} s (last half-second ${(100 * share).toFixed(0)} % busy, I/O wait included): measuring`,
  );
  return { quiet: quiet >= 2, waitedSeconds, busyShare: share };
}

function adminUrl(): { url: string; name: string } {
  const u = new URL(benchUrl);
  const name = decodeURIComponent(u.pathname.slice(1));
  u.pathname = '/postgres';
  return { url: u.toString(), name };
}

/** Drops the bench database; with `recreate`, creates it again, empty. */
async function dropDatabase(recreate = false): Promise<void> {
  const { url, name } = adminUrl();
  const quoted = `"${name.replace(/"/g, '""')}"`;
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(`DROP DATABASE IF EXISTS ${quoted} WITH (FORCE)`);
    if (recreate) await c.query(`CREATE DATABASE ${quoted}`);
  } finally {
    await c.end();
  }
}

interface Stat {
  p50: number;
  p95: number;
  min: number;
}

async function measure(fn: () => Promise<unknown>, n = iterations): Promise<Stat> {
  return (await measureAlternating([fn], n))[0];
}

/** Like {@link measure} for several functions, called in turn each iteration (same load for all). */
async function measureAlternating(fns: (() => Promise<unknown>)[], n = iterations): Promise<Stat[]> {
  for (let i = 0; i < 3; i++) for (const fn of fns) await fn(); // warm-up
  const times: number[][] = fns.map(() => []);
  for (let i = 0; i < n; i++) {
    for (const [k, fn] of fns.entries()) {
      const t = process.hrtime.bigint();
      await fn();
      times[k].push(Number(process.hrtime.bigint() - t) / 1e6);
    }
  }
  return times.map(stat);
}

function stat(times: number[]): Stat {
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)];
  return { p50: at(0.5), p95: at(0.95), min: times[0] };
}

const fmt = (n: number) => (n < 10 ? n.toFixed(2) : n.toFixed(1));

async function explain(manager: EntityManager, sql: string, params: unknown[]): Promise<string[]> {
  const rows: { 'QUERY PLAN': string }[] = await manager.query(
    `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${sql}`,
    params,
  );
  return rows.map((r) => r['QUERY PLAN']);
}

async function benchSize(ds: DataSource, size: number): Promise<Record<string, unknown>> {
  const m = ds.manager;
  const out: Record<string, unknown> = { size, date: new Date().toISOString(), iterations };
  console.log(`\n## ${size.toLocaleString('en')} findings`);
  const [{ n: existing }]: { n: number }[] = await m.query(`SELECT count(*)::int AS n FROM findings`);
  if (reuse && existing === size) {
    console.log(`  reusing the ${existing.toLocaleString('en')} findings already there (--reuse)`);
  } else {
    if (existing > 0)
      throw new Error(
        `--reuse: the database holds ${existing} findings, not ${size}; run once without --reuse (with --keep)`,
      );
    const gen = await generateCorpus(ds, {
      findings: size,
      onProgress: (w, t) =>
        process.stdout.write(`\r  generating ${w.toLocaleString('en')}/${t.toLocaleString('en')}`),
    });
    console.log(
      `\n  generated ${gen.findings.toLocaleString('en')} findings in ${gen.reports} reports in ${(gen.milliseconds / 1000).toFixed(1)} s (COPY, index rebuild, VACUUM ANALYZE)`,
    );
    out['generateSeconds'] = gen.milliseconds / 1000;
  }
  // The bulk load leaves ~1 GB of WAL behind it, so PostgreSQL would spend the measurement in a
  // spread checkpoint writing the load's buffers; flush them first (needs superuser or
  // pg_checkpoint: skipped, and said, without).
  try {
    await m.query('CHECKPOINT');
  } catch (e) {
    console.log(`  (no CHECKPOINT before measuring: ${(e as Error).message})`);
  }
  out['machineBeforeMeasuring'] = await waitForQuietMachine();

  const rows: string[][] = [];
  const row = (name: string, s: Stat, goal = '') => {
    rows.push([name, fmt(s.p50), fmt(s.p95), goal]);
    out[name] = s;
  };

  // One pass over every measured query first: right after the bulk load the first term measured
  // would otherwise pay for bringing the findings' pages into shared buffers (its count ran at
  // about twice its later speed), which no operator on a running deployment sees.
  for (const term of Object.values(TERMS)) {
    const where = await buildFindingWhere(m, normaliseFilter({ text: term }));
    await searchFindings(m, { text: term, limit: 50 }, { cache: false });
    await findingRows(m, where, 50, 0);
    await countMatching(m, where);
  }
  for (const [label, term] of Object.entries(TERMS)) {
    const filter = normaliseFilter({ text: term });
    const where = await buildFindingWhere(m, filter);
    const total = await countMatching(m, where);
    const pct = (100 * total) / size;
    out[`${label} share`] = { term, total, percent: pct };
    console.log(`  term "${term}" (${label}): ${total.toLocaleString('en')} matches = ${pct.toFixed(2)} %`);
    const goal =
      label === 'rare' ? '≤ 20' : label === 'common' ? '≤ 150' : label === 'very common' ? '≤ 500' : '';
    // The search and the count alone alternate, so the ratio compares them under the same load.
    // The agent's tools and the findings API search inside runReadOnly (one connection, one snapshot).
    const [full, countOnly, readOnly] = await measureAlternating([
      () => searchFindings(m, { text: term, limit: 50 }, { cache: false }),
      () => countMatching(m, where),
      () => runReadOnly(ds, (em) => searchFindings(em, { text: term, limit: 50 }, { cache: false })),
    ]);
    row(`searchFindings ${label} "${term}" (page of 50 + exact total)`, full, goal);
    row(`  in runReadOnly, as the tools call it (${label})`, readOnly);
    const rowsOnly = await measure(() => findingRows(m, where, 50, 0));
    row(`  rows only (${label})`, rowsOnly, label === 'class-widened (XSS)' ? '' : '≤ 5');
    row(`  count only (${label})`, countOnly);
    const ratio = full.p50 / countOnly.p50;
    rows.push([
      `  page+total ÷ count (${label}), p50`,
      ratio.toFixed(2),
      '',
      label === 'common' || label === 'very common' ? '≤ 1.1' : '',
    ]);
    out[`ratio ${label}`] = ratio;
    rows.push([`  runReadOnly ÷ count (${label}), p50`, (readOnly.p50 / countOnly.p50).toFixed(2), '', '']);
    out[`read-only ratio ${label}`] = readOnly.p50 / countOnly.p50;
    // A later page counts the matches per severity to find where it starts (no goal; reported).
    const offset = Math.min(500, Math.max(0, total - 50));
    row(
      `  page at offset ${offset} + exact total (${label})`,
      await measure(() => searchFindings(m, { text: term, limit: 50, offset }, { cache: false })),
    );
  }
  row(
    `countFindingsBy('severity'), no filter`,
    await measure(() => countFindingsBy(m, { groupBy: 'severity' }, { cache: false })),
    '≤ 100',
  );
  row(
    `countFindingsBy('severity'), text "cookie" (live count)`,
    await measure(() =>
      countFindingsBy(m, { groupBy: 'severity', filter: { text: 'cookie' } }, { cache: false }),
    ),
  );
  row(
    `countFindingsBy('report'), severity=critical`,
    await measure(() =>
      countFindingsBy(m, { groupBy: 'report', filter: { severity: 'critical' } }, { cache: false }),
    ),
  );
  row(
    `countFindingsBy('cwe'), text "cookie"`,
    await measure(() => countFindingsBy(m, { groupBy: 'cwe', filter: { text: 'cookie' } }, { cache: false })),
  );
  row('corpusOverview', await measure(() => corpusOverview(m, { cache: false }), Math.min(iterations, 15)));
  await searchFindings(m, { text: 'application', limit: 50 });
  // A cached repeat takes ~0.4 ms: 40 samples put its p95 at the third-slowest, i.e. at whichever
  // GC pause or scheduler hiccup happened to land in the run; 400 samples (0.2 s) estimate it.
  row(
    `cached repeat: searchFindings "application" (${CACHED_ITERATIONS} iterations)`,
    await measure(() => searchFindings(m, { text: 'application', limit: 50 }), CACHED_ITERATIONS),
    '≤ 2',
  );

  console.log('\n| query | p50 ms | p95 ms | goal (p95) |\n|---|---:|---:|---|');
  for (const r of rows) console.log(`| ${r.join(' | ')} |`);

  console.log('\n### Plans');
  const plans: Record<string, string[]> = {};
  for (const [label, term] of Object.entries(TERMS)) {
    const where = await buildFindingWhere(m, normaliseFilter({ text: term }));
    plans[`count ${label}`] = await explain(
      m,
      `SELECT count(*) FROM findings f WHERE ${where.sql}`,
      where.params.values,
    );
    plans[`rows ${label} (page of 50)`] = await explain(
      m,
      `SELECT f.id FROM findings f WHERE ${where.sql} ORDER BY f.severity, f.id LIMIT 50`,
      where.params.values,
    );
  }
  plans['severity counts (trigger-kept table)'] = await explain(
    m,
    `SELECT c.severity, sum(c.findings) FROM finding_severity_counts c LEFT JOIN reports r ON r.id = c.report_key
     WHERE c.findings > 0 AND (c.report_key = 0 OR NOT r.archived) GROUP BY c.severity`,
    [],
  );
  for (const [name, lines] of Object.entries(plans)) {
    console.log(`\n${name}:`);
    for (const l of lines) console.log(`    ${l}`);
  }
  out['plans'] = plans;
  return out;
}

async function main(): Promise<void> {
  console.log(
    `# bench:queries — sizes ${sizes.join(', ')}, ${iterations} iterations, database ${adminUrl().name}`,
  );
  const results: Record<string, unknown>[] = [];
  for (const size of sizes) {
    if (!reuse) await dropDatabase(true);
    const ds = createDataSource(benchUrl, { extra: { max: 4 } });
    await ds.initialize();
    try {
      await ds.runMigrations({ transaction: 'each' });
      const r = await benchSize(ds, size);
      results.push(r);
      const dir = path.resolve(__dirname, '..', '..', '..', 'bench', 'results');
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, `queries-${size}.json`), JSON.stringify(r, null, 2));
    } finally {
      await ds.destroy();
    }
  }
  if (!keep) await dropDatabase();
}

main().catch(async (e) => {
  console.error(e);
  if (!keep) await dropDatabase().catch(() => undefined);
  process.exit(1);
});
