/**
 * `npm run bench -- [--quick] [--scenario=1,2,…] [--profile] [--no-build] [--log-level=info]
 * [--coalesce-ms=16]`: the benchmark harness (docs/benchmarks.md). Runs each scenario against the
 * real stack and writes JSON results and logs to bench/results/<run>/.
 */
import fs from 'node:fs';
import path from 'node:path';
import { closePools } from './lib/api-client';
import { hostSpeedProbe, loadNow, machineInfo, machineLine, machineStealSeconds } from './lib/machine';
import { measurePrimitives } from './lib/primitives';
import {
  type BenchContext,
  type Figure,
  figuresTable,
  judge,
  primitivesLine,
  printResult,
  type ScenarioResult,
} from './lib/report';
import { BenchStack, ROOT } from './lib/stack';
import { scenario1 } from './scenarios/s1-pickup';
import { scenario2 } from './scenarios/s2-turn-latency';
import { scenario3 } from './scenarios/s3-one-worker';
import { scenario4 } from './scenarios/s4-scale-out';
import { scenario5 } from './scenarios/s5-fan-out';
import { scenario6 } from './scenarios/s6-queries';
import { scenario7 } from './scenarios/s7-import-load';
import { scenario8 } from './scenarios/s8-import-speed';
import { scenario9 } from './scenarios/s9-first-turn';

const args = new Map(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, '').split('=');
    return [k, v ?? 'true'] as const;
  }),
);
const quick = args.has('quick');
const profile = args.has('profile');
const selected = (args.get('scenario') ?? '1,2,3,4,5,6,7,8,9').split(',').map((s) => Number(s.trim()));
const logLevel = args.get('log-level') ?? 'info';
const coalesceMs = Number(args.get('coalesce-ms') ?? 16);

const SCENARIOS: Record<number, (ctx: BenchContext) => Promise<ScenarioResult>> = {
  1: scenario1,
  2: scenario2,
  3: scenario3,
  4: scenario4,
  5: scenario5,
  6: scenario6,
  7: scenario7,
  8: scenario8,
  9: scenario9,
};

function log(m: string): void {
  console.log(`[bench ${new Date().toISOString().slice(11, 19)}] ${m}`);
}

async function versions(stack: BenchStack): Promise<{ postgres: string; redis: string }> {
  const [{ version }] = await stack.ds.query('SELECT version()');
  const info = await stack.redis.info('server');
  return {
    postgres: String(version).split(' on ')[0],
    redis: /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown',
  };
}

async function main(): Promise<void> {
  const started = Date.now();
  const runId = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
  const resultsDir = path.join(ROOT, 'bench', 'results', runId);
  const logsDir = path.join(resultsDir, 'logs');
  const command = `npm run bench${process.argv.slice(2).length ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;
  log(`${command} → ${path.relative(ROOT, resultsDir)}`);
  if (args.get('build') !== 'false' && !args.has('no-build')) BenchStack.build(log);

  const stack = new BenchStack(logsDir, log, logLevel);
  const onSignal = () => {
    log('interrupted: stopping the stack');
    void stack.dispose().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  process.once('exit', () => stack.killNow());

  const results: ScenarioResult[] = [];
  const failures: string[] = [];
  try {
    await stack.setup();
    const machine = machineInfo(await versions(stack));
    const line = machineLine(machine);
    log(`machine: ${line}`);
    const base = { quick, profile, coalesceMs, stack, logsDir, log };
    for (const id of selected) {
      const run = SCENARIOS[id];
      if (!run) throw new Error(`no scenario ${id} (1–9)`);
      const loadAtStart = loadNow();
      const host = hostSpeedProbe();
      const t0 = Date.now();
      const steal0 = machineStealSeconds();
      log(
        `scenario ${id}… (load average ${loadAtStart.join(' / ')}; host probe: SHA-256 of 32 MiB ${host.cpuMs} ms, 0.5 M random reads ${host.memoryMs} ms)`,
      );
      try {
        const primitives = await measurePrimitives(stack);
        const r = await run({ ...base, primitives });
        r.primitives = primitives;
        judge(r.figures, primitives);
        const seconds = (Date.now() - t0) / 1000;
        const steal1 = machineStealSeconds();
        const stealPct = (100 * (steal1.steal - steal0.steal)) / Math.max(steal1.total - steal0.total, 1e-9);
        r.markdown.push(
          `Scenario ${id}: ${seconds.toFixed(0)} s, load average (1/5/15 min) ${loadAtStart.join(' / ')} at its start and ${loadNow().join(' / ')} at its end; host probe before it (best of 3; lower is faster): SHA-256 of 32 MiB ${host.cpuMs} ms, 0.5 M dependent random reads over 64 MiB ${host.memoryMs} ms; CPU time stolen by the hypervisor during it ${stealPct.toFixed(1)} %.`,
        );
        results.push(r);
        printResult(r, line);
        const file = path.join(resultsDir, `scenario-${r.id}.json`);
        const meta = {
          command,
          date: new Date().toISOString(),
          quick,
          seconds,
          machine,
          loadAtStart,
          loadAtEnd: loadNow(),
          host,
          stealPct,
        };
        fs.writeFileSync(file, JSON.stringify({ ...meta, ...r }, null, 2));
        log(`scenario ${id} took ${seconds.toFixed(0)} s → ${path.relative(ROOT, file)}`);
      } catch (e) {
        failures.push(`scenario ${id}: ${(e as Error).stack ?? String(e)}`);
        log(`scenario ${id} FAILED: ${(e as Error).stack ?? String(e)}`);
      } finally {
        await stack.stopAll().catch(() => undefined);
        await stack.clearRedis().catch(() => undefined);
        await closePools().catch(() => undefined);
      }
    }
    const seconds = (Date.now() - started) / 1000;
    const summary = summaryMarkdown(results, command, line, seconds);
    fs.writeFileSync(path.join(resultsDir, 'summary.md'), summary);
    console.log(`\n# Summary\n\n${summary}`);
    log(`done in ${seconds.toFixed(0)} s; results in ${path.relative(ROOT, resultsDir)}`);
  } finally {
    await stack.dispose();
  }
  if (failures.length) {
    console.error(`\n${failures.length} scenario(s) failed:\n${failures.join('\n')}`);
    process.exitCode = 1;
  }
}

function summaryMarkdown(
  results: ScenarioResult[],
  command: string,
  machine: string,
  seconds: number,
): string {
  const parts = [
    `Command: \`${command}\` — ${new Date().toISOString()} — ${seconds.toFixed(0)} s`,
    `Machine: ${machine}; load average at end ${loadNow().join(' / ')}`,
  ];
  for (const r of results) {
    const primitives = r.primitives ? `\n\n${primitivesLine(r.primitives)}` : '';
    parts.push(
      `### ${r.id}. ${r.title}\n\n${figuresTable(r.figures, r.primitives)}${primitives}\n\n${r.markdown.join('\n\n')}`,
    );
  }
  const missed: Figure[] = results.flatMap((r) => r.figures.filter((f) => f.met === false));
  parts.push(
    missed.length
      ? `Missed goals: ${missed.map((f) => `${f.name} (${f.goal})`).join('; ')}`
      : 'Every goal measured in this run was met.',
  );
  return parts.join('\n\n');
}

main()
  // Exit even if a library left a handle open (pools, sockets): everything was stopped above.
  .then(() => process.exit(process.exitCode ?? 0))
  .catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
