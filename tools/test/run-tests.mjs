#!/usr/bin/env node
/**
 * `npm test`: formatting, lint, type-check and every test suite, in that order, stopping at nothing
 * so one run shows every failure. Needs Postgres (127.0.0.1:5432) and Redis (127.0.0.1:6379); each
 * suite makes its own databases and Redis key prefixes, so the development data is never touched.
 * Several specs read the shared data folder (`$SHARED_DIR`, else `../shared` beside the repository).
 *
 *   npm test                 everything (the fuzz suite as a seeded sample)
 *   npm run test:unit        unit specs only (`src/` `*.spec.ts` and the web app); no Postgres or Redis
 *   npm run test:int         integration specs only (`*.int-spec.ts`, `test/` folders)
 *   npm run test:drills      the fault drills (private Redis/Postgres servers stopped and started,
 *                            workers killed or stalled, floods; tools/test/drill-specs.cjs), which
 *                            `npm test` leaves out; CI runs them after it
 *   npm run test:fuzz        the whole fuzz suites (every case; minutes): the API fuzz and the
 *                            importer's robustness suite
 *   npm test -- --serial     everything, one step at a time
 *   npm test -- --only=jest  one step by name (format, lint, lint-tools, typecheck-tools, typecheck,
 *                            jest, jest-unit, jest-int, drills, fuzz, web, e2e), or several: --only=jest,e2e
 *
 * In a run of every step, the web app's unit tests and then the browser tests run beside the Jest
 * step rather than after it: Jest's integration specs spend much of their time waiting on timers,
 * sockets and child processes, so the two lanes share the two cores with little slowdown. Those
 * steps' output is written to test-artifacts/<step>.log and printed when Jest ends (one step at a
 * time stays readable). `--serial` runs every step one after another, streaming its output.
 *
 * Lint and type-check use the Nx cache: a project is checked again only when its files, a
 * dependency's files, the lockfile, `tsconfig.base.json` or the ESLint config changed (the inputs
 * in `nx.json`); so does the browser tests' production build of the web app. Tests always run.
 * `NX_SKIP_NX_CACHE=true npm test` checks and builds everything anyway.
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const arg = (name) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const only = arg('only')?.split(',');
const suite = arg('suite') ?? 'all';
const serial = process.argv.includes('--serial');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const sharedDir = process.env.SHARED_DIR
  ? path.resolve(process.env.SHARED_DIR)
  : path.resolve(root, '..', 'shared');

/** The services the tests use, as the test helpers read them (docs/configuration.md). */
const PG_URL = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Whether a TCP connection to the host and port of `url` opens (`defaultPort` when it names none). */
function reachable(url, defaultPort) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const s = net.connect(
      { host: hostname || '127.0.0.1', port: Number(port) || defaultPort, timeout: 1500 },
      () => (s.destroy(), resolve(true)),
    );
    s.on('error', () => resolve(false));
    s.on('timeout', () => (s.destroy(), resolve(false)));
  });
}

/** The fuzz suites: a seeded sample of each runs in `npm test`, every case under `npm run test:fuzz`. */
const FUZZ_SPECS = [
  'apps/api/test/security/fuzz.int-spec.ts',
  'libs/ingest/src/importers/import-robustness.int-spec.ts',
];
/** The fault drills: left out of `npm test`, run by `npm run test:drills` (CI runs both). */
const DRILL_SPECS = createRequire(import.meta.url)('./drill-specs.cjs');
const E2E_CONFIG = 'apps/web-e2e/playwright.config.mjs';
// Three workers on two cores: the integration specs wait on child processes, sockets and timers
// for much of their time (docs/bench-log.md, "npm test: where the time goes").
const jest = (extra = []) => ['--maxWorkers=3', '--ci', ...extra];
/**
 * Every step; `suites` says which commands run it. `needsServices`: Postgres and Redis;
 * `needsShared`: the shared data folder. `beside`: when the named step runs too, this one runs in
 * a second lane during it (after the lane's earlier steps), its output captured.
 */
const steps = [
  // Every file as the repository's prettier config writes it (`npm run format` fixes it).
  { name: 'format', suites: ['all'], cmd: bin('prettier'), args: ['--check', '.', '--log-level=warn'] },
  {
    name: 'lint',
    suites: ['all'],
    cmd: bin('nx'),
    args: ['run-many', '-t', 'lint', '--parallel=2', '--outputStyle=static'],
  },
  {
    name: 'lint-tools',
    suites: ['all'],
    cmd: bin('eslint'),
    args: ['tools', 'bench', 'jest.config.cjs', 'eslint.config.mjs'],
  },
  {
    name: 'typecheck-tools',
    suites: ['all'],
    cmd: bin('tsc'),
    args: ['-p', 'tools/tsconfig.json', '--noEmit'],
  },
  {
    name: 'typecheck',
    suites: ['all'],
    cmd: bin('nx'),
    args: ['run-many', '-t', 'typecheck', '--parallel=2', '--outputStyle=static'],
  },
  {
    name: 'jest',
    suites: ['all'],
    cmd: bin('jest'),
    args: jest(),
    env: { CC_SKIP_DRILLS: '1' },
    needsServices: true,
    needsShared: true,
  },
  {
    name: 'drills',
    suites: ['drills'],
    cmd: bin('jest'),
    args: jest(DRILL_SPECS),
    needsServices: true,
    needsShared: true,
  },
  {
    name: 'jest-unit',
    suites: ['unit'],
    cmd: bin('jest'),
    args: jest(),
    env: { CC_TEST_TIER: 'unit' },
    needsShared: true,
  },
  {
    name: 'jest-int',
    suites: ['int'],
    cmd: bin('jest'),
    args: jest(),
    env: { CC_TEST_TIER: 'int' },
    needsServices: true,
    needsShared: true,
  },
  {
    name: 'fuzz',
    suites: ['fuzz'],
    cmd: bin('jest'),
    args: jest(FUZZ_SPECS),
    env: { FUZZ_FULL: '1' },
    needsServices: true,
  },
  {
    name: 'web',
    suites: ['all', 'unit'],
    cmd: bin('nx'),
    args: ['run', 'web:test', '--outputStyle=static', '--skip-nx-cache'],
    beside: 'jest',
    when: () => fs.existsSync(path.join(root, 'apps/web/project.json')),
  },
  // Playwright's global setup builds the web app (production) before the specs run; E2E_SKIP_BUILD=1 reuses dist/web/browser.
  {
    name: 'e2e',
    suites: ['all'],
    cmd: bin('playwright'),
    args: ['test', '-c', E2E_CONFIG],
    needsServices: true,
    needsShared: true,
    beside: 'jest',
    when: () => fs.existsSync(path.join(root, E2E_CONFIG)),
  },
];

const selected = steps.filter(
  (step) => (only ? only.includes(step.name) : step.suites.includes(suite)) && (!step.when || step.when()),
);
if (!selected.length) {
  console.error(
    `No step to run for ${only ? `--only=${only.join(',')}` : `--suite=${suite}`}; steps: ${steps.map((s) => s.name).join(', ')}.`,
  );
  process.exit(2);
}

// Checked before anything runs, so a missing prerequisite costs seconds, not a lint and type-check.
const needShared = selected.filter((s) => s.needsShared).map((s) => s.name);
const missingShared = ['corpus', path.join('questions', 'questions.json')].filter(
  (p) => !fs.existsSync(path.join(sharedDir, p)),
);
if (needShared.length && missingShared.length) {
  console.error(
    `\nThe shared data folder ${sharedDir} lacks ${missingShared.map((p) => path.join(sharedDir, p)).join(' and ')}.\n` +
      `The ${needShared.join(', ')} step(s) read it: the scanner reports of shared/corpus and the questions with their exact\n` +
      `answers of shared/questions (importer, query, planner and e2e specs). Put the folder beside this repository or set SHARED_DIR.`,
  );
  process.exit(2);
}
const needServices = selected.filter((s) => s.needsServices).map((s) => s.name);
if (needServices.length) {
  for (const [name, url, port, variable] of [
    ['Postgres', PG_URL, 5432, 'TEST_PG_URL'],
    ['Redis', REDIS_URL, 6379, 'TEST_REDIS_URL'],
  ]) {
    if (!(await reachable(url, port))) {
      const where = new URL(url);
      console.error(
        `\n${name} is not reachable at ${where.hostname}:${where.port || port} (${variable}); the ${needServices.join(', ')} step(s) need it. Start it (see README, "Two commands").`,
      );
      process.exit(2);
    }
  }
}

/**
 * This run's id: the test helpers name their Redis key prefixes and scratch folders
 * `cc-test-<id>-…` (`testRunPrefix()` in @corpus-chat/persistence/testing), and both are removed
 * when the run ends, so repeated runs leave nothing behind on a shared Redis.
 */
const runId = crypto.randomBytes(6).toString('hex');

/**
 * Deletes this run's scratch folders and, when a step used Redis, its Redis keys (best effort: a
 * cleanup never fails the run).
 */
async function cleanUp() {
  const prefix = `cc-test-${runId}-`;
  try {
    if (!needServices.length) {
      const dirs = fs.readdirSync(os.tmpdir()).filter((d) => d.startsWith(prefix));
      for (const d of dirs) fs.rmSync(path.join(os.tmpdir(), d), { recursive: true, force: true });
      console.log(`\n=== cleanup: ${dirs.length} scratch folders of this run (${prefix}*) removed`);
      return;
    }
    const { default: Redis } = await import('ioredis');
    const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
    let cursor = '0';
    let deleted = 0;
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `*${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) deleted += await redis.del(...keys);
    } while (cursor !== '0');
    await redis.quit();
    const dirs = fs.readdirSync(os.tmpdir()).filter((d) => d.startsWith(prefix));
    for (const d of dirs) fs.rmSync(path.join(os.tmpdir(), d), { recursive: true, force: true });
    console.log(
      `\n=== cleanup: ${deleted} Redis keys and ${dirs.length} scratch folders of this run (${prefix}*) removed`,
    );
  } catch (e) {
    console.log(`\n=== cleanup skipped: ${e.message}`);
  }
}

const artifacts = path.join(root, 'test-artifacts');
const stepEnv = (step) => ({
  ...process.env,
  NX_DAEMON: 'false',
  NX_NO_CLOUD: 'true',
  CC_TEST_RUN_ID: runId,
  SHARED_DIR: sharedDir,
  ...step.env,
});

/** Runs one step; with `logFile` its output goes there instead of this terminal. */
function run(step, logFile) {
  const started = Date.now();
  let out = 'inherit';
  if (logFile) {
    fs.mkdirSync(path.dirname(logFile), { recursive: true });
    out = fs.openSync(logFile, 'w');
  }
  const child = spawn(step.cmd, step.args, { cwd: root, stdio: ['inherit', out, out], env: stepEnv(step) });
  if (typeof out === 'number') fs.closeSync(out);
  return new Promise((resolve) => {
    const done = (ok) => resolve({ name: step.name, ok, seconds: (Date.now() - started) / 1000 });
    child.on('error', (e) => {
      console.error(`${step.name}: ${e.message}`);
      done(false);
    });
    child.on('exit', (code) => done(code === 0));
  });
}

const header = (step, note = '') =>
  console.log(`\n=== ${step.name}${note}: ${path.basename(step.cmd)} ${step.args.join(' ')}`);
const results = [];
for (const step of selected) {
  const besideNames = new Set(selected.filter((s) => s.beside === step.name).map((s) => s.name));
  if (step.beside && !serial && selected.some((s) => s.name === step.beside)) continue;
  if (serial || !besideNames.size) {
    header(step);
    results.push(await run(step));
    continue;
  }
  const lane = selected.filter((s) => besideNames.has(s.name));
  for (const s of lane)
    header(s, ` (beside ${step.name}; output in test-artifacts/${s.name}.log, printed when it ends)`);
  const laneDone = (async () => {
    const laneResults = [];
    for (const s of lane) laneResults.push(await run(s, path.join(artifacts, `${s.name}.log`)));
    return laneResults;
  })();
  header(step);
  results.push(await run(step));
  const laneResults = await laneDone;
  for (const r of laneResults) {
    console.log(
      `\n=== ${r.name} (ran beside ${step.name}; ${r.ok ? 'passed' : 'FAILED'} in ${r.seconds.toFixed(1)} s): its output`,
    );
    process.stdout.write(fs.readFileSync(path.join(artifacts, `${r.name}.log`), 'utf8'));
  }
  results.push(...laneResults);
}

await cleanUp();

console.log('\n=== summary');
for (const r of results) console.log(`${r.ok ? 'PASS' : 'FAIL'} ${r.name} (${r.seconds.toFixed(1)} s)`);
const failed = results.filter((r) => !r.ok).length;
console.log(`steps: ${results.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
