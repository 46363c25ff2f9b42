import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { type BenchContext, goalFigure, type Figure, type ScenarioResult } from '../lib/report';
import { ROOT } from '../lib/stack';

/** The part of a query's timing in the corpus bench's result that is judged here. */
type Stat = { p95: number };

/**
 * Scenario 6 — queries: runs `npm run bench:queries` on 1,000,000 findings (100,000 with --quick)
 * and puts each figure next to its goal.
 */
export async function scenario6(ctx: BenchContext): Promise<ScenarioResult> {
  const { stack, log } = ctx;
  const size = ctx.quick ? 100_000 : 1_000_000;
  const u = new URL(stack.pgServerUrl);
  u.pathname = `/${stack.dbName}_queries`;
  const logFile = path.join(ctx.logsDir, 'queries-bench.log');
  const args = [
    'tools/cli/run-ts.mjs',
    'libs/corpus-queries/bench/queries.bench.ts',
    `--sizes=${size}`,
    ...(ctx.quick ? ['--quick'] : []),
  ];
  log(
    `s6: node ${args.join(' ')} (BENCH_DATABASE_URL …/${stack.dbName}_queries) → ${path.relative(ROOT, logFile)}`,
  );
  const out = fs.openSync(logFile, 'w');
  const started = Date.now();
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env: { ...process.env, BENCH_DATABASE_URL: u.toString() },
      stdio: ['ignore', out, out],
    });
    child.on('exit', (c) => resolve(c));
  });
  fs.closeSync(out);
  if (code !== 0)
    throw new Error(
      `queries bench exited ${code}; see ${logFile}:\n${fs.readFileSync(logFile, 'utf8').slice(-2000)}`,
    );
  // Where the corpus bench writes its result (the repository's bench/results; older versions: beside it).
  const source = [
    path.join(ROOT, 'bench/results', `queries-${size}.json`),
    path.join(ROOT, 'libs/corpus-queries/bench/results', `queries-${size}.json`),
  ]
    .filter((f) => fs.existsSync(f) && fs.statSync(f).mtimeMs >= started)
    .at(0);
  if (!source) throw new Error(`the queries bench wrote no queries-${size}.json; see ${logFile}`);
  const r = JSON.parse(fs.readFileSync(source, 'utf8')) as Record<string, unknown>;
  fs.copyFileSync(source, path.join(path.dirname(ctx.logsDir), `queries-${size}.json`));

  const key = (pred: (k: string) => boolean): string | undefined => Object.keys(r).find(pred);
  const starting = (prefix: string) => key((k) => k.startsWith(prefix));
  const figures: Figure[] = [];
  const p95 = (name: string, k: string | undefined, bound: number) => {
    const s = k ? (r[k] as Stat) : undefined;
    figures.push(
      s
        ? goalFigure(name, 'ms', s.p95, `p95 ≤ ${bound} ms`, s.p95 <= bound)
        : { name: `${name} (not in the result)`, unit: 'ms' },
    );
  };
  const terms: [string, string, number][] = [
    ['rare', 'rare term (≤ 1 % of rows)', 20],
    ['common', 'common term (~10 %)', 150],
    ['very common', 'worst case (~45 %)', 500],
  ];
  for (const [label, name, bound] of terms) {
    const share = r[`${label} share`] as { term: string; percent: number } | undefined;
    const term = share ? ` "${share.term}", ${share.percent.toFixed(1)} %` : '';
    p95(
      `searchFindings, ${name}${term}: page of 50 + exact total`,
      starting(`searchFindings ${label} `),
      bound,
    );
  }
  const rowsOnly = (label: string) => (k: string) => k.trim() === `rows only (${label})`;
  for (const [label] of terms) p95(`capped rows alone (${label})`, key(rowsOnly(label)), 5);
  for (const [label] of terms) {
    const ratio = r[`ratio ${label}`];
    if (typeof ratio === 'number')
      figures.push(
        goalFigure(`page + exact total ÷ count alone (${label}, p50)`, '×', ratio, '≤ 1.1 ×', ratio <= 1.1),
      );
  }
  p95(`countFindingsBy('severity')`, starting(`countFindingsBy('severity')`), 100);
  p95('repeat of the same question, corpus unchanged (cached)', starting('cached repeat'), 2);
  return {
    id: 6,
    title: `Queries over ${size.toLocaleString('en')} findings`,
    figures,
    markdown: [
      `\`npm run bench:queries -- --sizes=${size}${ctx.quick ? ' --quick' : ''}\` on a database of its own (${(r['generateSeconds'] as number)?.toFixed?.(0) ?? '?'} s to generate the corpus), ${r['iterations']} iterations per query after a warm-up pass over every query and 3 warm-up calls each; p95 in ms. ${((Date.now() - started) / 1000).toFixed(0)} s in all. Full table and plans: ${path.relative(ROOT, logFile)}.`,
    ],
    raw: r,
  };
}
