import { machineCpuSeconds, pidsMatching, processCpuSeconds } from './machine';
import type { BenchStack } from './stack';
import { fmt, table } from './stats';

/** CPU seconds per part of the stack over one measurement. */
export interface CpuBreakdown {
  seconds: number;
  /** Part name → CPU seconds (user + system). */
  parts: Record<string, number>;
  /** Busy CPU seconds of the whole machine (every process, ours or not). */
  machineBusy: number;
  /** Machine CPU seconds available (cores × wall time). */
  machineTotal: number;
}

/**
 * CPU seconds of the stack's processes from /proc/<pid>/stat: API, workers, stub model, harness,
 * the bench database's Postgres backends (new ones from zero) and redis-server (shared).
 * `CpuMeter.start` takes the first reading.
 */
export class CpuMeter {
  private readonly start = new Map<number, number>();
  private readonly machine0 = machineCpuSeconds();
  private readonly t0 = Date.now();
  private readonly redisPids = pidsMatching(/^\/?\S*redis-server/);
  private constructor(private readonly stack: BenchStack) {}

  /** Takes the first reading. */
  static async start(stack: BenchStack): Promise<CpuMeter> {
    const meter = new CpuMeter(stack);
    // Postgres backends live across phases (the pools of the API and the workers): without a first
    // reading each would count its whole life, the warm-up and earlier phases included.
    const pgPids = await stack.postgresBackendPids();
    for (const pid of [...meter.pids(), ...pgPids]) meter.start.set(pid, processCpuSeconds(pid) ?? 0);
    return meter;
  }

  private pids(): number[] {
    const s = this.stack;
    return [
      process.pid,
      ...this.redisPids,
      ...[s.api, s.stub, ...s.workers].flatMap((p) => (p ? [p.pid] : [])),
    ];
  }

  private delta(pid: number): number {
    return Math.max(0, (processCpuSeconds(pid) ?? 0) - (this.start.get(pid) ?? 0));
  }

  /** Takes the second reading (the bench database's backends are listed now, before they close). */
  async stop(): Promise<CpuBreakdown> {
    const s = this.stack;
    const pgPids = await s.postgresBackendPids();
    const parts: Record<string, number> = {};
    if (s.api) parts['api'] = this.delta(s.api.pid);
    for (const w of s.workers) parts[w.name] = this.delta(w.pid);
    if (s.stub) parts['stub model'] = this.delta(s.stub.pid);
    parts['postgres (bench backends)'] = pgPids.reduce((a, pid) => a + this.delta(pid), 0);
    parts['redis-server'] = this.redisPids.reduce((a, pid) => a + this.delta(pid), 0);
    parts['harness (load generator)'] = this.delta(process.pid);
    const m = machineCpuSeconds();
    return {
      seconds: (Date.now() - this.t0) / 1000,
      parts,
      machineBusy: m.busy - this.machine0.busy,
      machineTotal: m.total - this.machine0.total,
    };
  }
}

/** A table of CPU seconds, share of the machine, and ms per turn for each part. */
export function cpuTable(b: CpuBreakdown, turns: number, perLabel = 'CPU ms / turn'): string {
  const ours = Object.values(b.parts).reduce((a, x) => a + x, 0);
  const row = (name: string, sec: number, perTurn = true) => [
    name,
    fmt(sec),
    fmt((100 * sec) / b.machineTotal),
    perTurn ? fmt((1000 * sec) / turns) : '',
  ];
  const rows = Object.entries(b.parts).map(([name, sec]) => row(name, sec));
  rows.push(row('all of the above', ours));
  rows.push(row('rest of the machine (other work)', Math.max(0, b.machineBusy - ours), false));
  rows.push(row('idle', b.machineTotal - b.machineBusy, false));
  return table(['process', 'CPU s', '% of machine', perLabel], rows);
}
