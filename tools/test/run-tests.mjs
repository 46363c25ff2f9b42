#!/usr/bin/env node
/**
 * `npm test`: lint, type-check and every test suite, in that order, stopping at nothing so one run
 * shows every failure. Needs Postgres (127.0.0.1:5432) and Redis (127.0.0.1:6379); each suite makes
 * its own databases and Redis key prefixes, so the development data is never touched.
 *
 *   npm test                 everything
 *   npm test -- --only=jest  one step (lint, typecheck, jest, web, e2e)
 */
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const only = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length);
const bin = (name) => path.join(root, 'node_modules', '.bin', name);

function reachable(port) {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port, timeout: 1500 }, () => (s.destroy(), resolve(true)));
    s.on('error', () => resolve(false));
    s.on('timeout', () => (s.destroy(), resolve(false)));
  });
}

const steps = [
  { name: 'lint', cmd: bin('nx'), args: ['run-many', '-t', 'lint', '--parallel=2', '--outputStyle=static', '--skip-nx-cache'] },
  { name: 'lint-tools', cmd: bin('eslint'), args: ['tools', 'jest.config.cjs', 'eslint.config.mjs'] },
  { name: 'typecheck-tools', cmd: bin('tsc'), args: ['-p', 'tools/tsconfig.json', '--noEmit'] },
  { name: 'typecheck', cmd: bin('nx'), args: ['run-many', '-t', 'typecheck', '--parallel=2', '--outputStyle=static', '--skip-nx-cache'] },
  { name: 'jest', cmd: bin('jest'), args: ['--maxWorkers=2', '--ci'], needsServices: true },
  { name: 'web', cmd: bin('nx'), args: ['run', 'web:test', '--outputStyle=static', '--skip-nx-cache'], when: () => fs.existsSync(path.join(root, 'apps/web/project.json')) },
  { name: 'e2e', cmd: process.execPath, args: ['apps/web-e2e/run-e2e.mjs'], needsServices: true, when: () => fs.existsSync(path.join(root, 'apps/web-e2e/run-e2e.mjs')) },
];

/**
 * This run's id: the test helpers name their Redis key prefixes and scratch folders
 * `cc-test-<id>-…` (`testRunPrefix()` in @corpus-chat/corpus-queries/testing), and both are removed
 * when the run ends, so repeated runs leave nothing behind on a shared Redis.
 */
const runId = crypto.randomBytes(6).toString('hex');

/** Deletes this run's Redis keys and scratch folders (best effort: a cleanup never fails the run). */
async function cleanUp() {
  const prefix = `cc-test-${runId}-`;
  try {
    const { default: Redis } = await import('ioredis');
    const redis = new Redis('redis://127.0.0.1:6379', { lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
    let cursor = '0';
    let deleted = 0;
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) deleted += await redis.del(...keys);
    } while (cursor !== '0');
    await redis.quit();
    const dirs = fs.readdirSync(os.tmpdir()).filter((d) => d.startsWith(prefix));
    for (const d of dirs) fs.rmSync(path.join(os.tmpdir(), d), { recursive: true, force: true });
    console.log(`\n=== cleanup: ${deleted} Redis keys and ${dirs.length} scratch folders of this run (${prefix}*) removed`);
  } catch (e) {
    console.log(`\n=== cleanup skipped: ${e.message}`);
  }
}

const results = [];
for (const step of steps) {
  if (only && step.name !== only) continue;
  if (step.when && !step.when()) continue;
  if (step.needsServices) {
    for (const [name, port] of [['Postgres', 5432], ['Redis', 6379]]) {
      if (!(await reachable(port))) {
        console.error(`\n${name} is not reachable on 127.0.0.1:${port}; the ${step.name} step needs it. Start it (see README, "Running the tests").`);
        process.exit(2);
      }
    }
  }
  console.log(`\n=== ${step.name}: ${path.basename(step.cmd)} ${step.args.join(' ')}`);
  const started = Date.now();
  const r = spawnSync(step.cmd, step.args, { cwd: root, stdio: 'inherit', env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true', CC_TEST_RUN_ID: runId } });
  results.push({ name: step.name, ok: r.status === 0, seconds: (Date.now() - started) / 1000 });
}

await cleanUp();

console.log('\n=== summary');
for (const r of results) console.log(`${r.ok ? 'PASS' : 'FAIL'} ${r.name} (${r.seconds.toFixed(1)} s)`);
const failed = results.filter((r) => !r.ok).length;
console.log(`steps: ${results.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
