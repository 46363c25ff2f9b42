import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';

/** What a result was measured on. */
export interface MachineInfo {
  cpuModel: string;
  cores: number;
  ramGiB: number;
  node: string;
  os: string;
  postgres: string;
  redis: string;
  /** 1/5/15-minute load averages when the run started (other work on the machine shows here). */
  loadAtStart: number[];
}

/** Cores, RAM, CPU model, Node, Postgres and Redis versions, and the load average now. */
export function machineInfo(versions: { postgres: string; redis: string }): MachineInfo {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    ramGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    os: `${os.type()} ${os.release()}`,
    postgres: versions.postgres,
    redis: versions.redis,
    loadAtStart: loadNow(),
  };
}

/** The 1/5/15-minute load averages now. */
export const loadNow = (): number[] => os.loadavg().map((l) => Math.round(l * 100) / 100);

/** One line for the console and the document. */
export function machineLine(m: MachineInfo): string {
  return `${m.cores} cores (${m.cpuModel}), ${m.ramGiB} GiB RAM, Node ${m.node}, ${m.postgres}, Redis ${m.redis}, ${m.os}; load average at start ${m.loadAtStart.join(' / ')}`;
}

/** Clock ticks per second of /proc CPU times (`getconf CLK_TCK`, 100 on Linux). */
export const CLK_TCK = Number(getconf()) || 100;

function getconf(): string {
  try {
    return execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return '';
  }
}

/** The numbers of the `cpu` line of /proc/stat (all cores, in clock ticks: user, nice, system, idle, …). */
const procStatCpu = () =>
  fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);

/** CPU seconds (user + system) a process used so far, from /proc/<pid>/stat; null when it is gone. */
export function processCpuSeconds(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name (which may hold spaces): state is field 3.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(rest[11]);
    const stime = Number(rest[12]);
    return (utime + stime) / CLK_TCK;
  } catch {
    return null;
  }
}

/** Resident set size of a process in MiB (VmRSS), null when it is gone. */
export function processRssMiB(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** Busy and total CPU seconds of the whole machine so far (/proc/stat, all cores). */
export function machineCpuSeconds(): { busy: number; total: number } {
  const f = procStatCpu();
  const idle = f[3] + (f[4] ?? 0);
  const total = f.reduce((a, b) => a + b, 0);
  return { busy: (total - idle) / CLK_TCK, total: total / CLK_TCK };
}

/** Pids of processes whose command line matches `pattern` (e.g. the redis-server). */
export function pidsMatching(pattern: RegExp): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (pattern.test(cmd)) pids.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}

/**
 * CPU seconds the hypervisor gave to other guests while this VM wanted to run (`steal`, the 8th
 * field of the `cpu` line of /proc/stat, all cores), and all CPU seconds, so far.
 */
export function machineStealSeconds(): { steal: number; total: number } {
  const f = procStatCpu();
  // user … steal (guest time is already inside user)
  return { steal: (f[7] ?? 0) / CLK_TCK, total: f.slice(0, 8).reduce((a, b) => a + b, 0) / CLK_TCK };
}

/** What {@link hostSpeedProbe} measured (ms; the best of three, so a lower figure is a faster host). */
export interface HostSpeed {
  /** SHA-256 over 32 MiB: the core's speed. */
  cpuMs: number;
  /** 500,000 dependent reads at random places of a 64 MiB array: memory latency, which a query visiting thousands of heap pages pays. */
  memoryMs: number;
}

const chase = () => {
  // A single cycle through 16 Mi slots (Sattolo's shuffle), so each read depends on the last.
  const n = 1 << 24;
  const next = new Uint32Array(n);
  for (let i = 0; i < n; i++) next[i] = i;
  let seed = 12345;
  for (let i = n - 1; i > 0; i--) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    const j = seed % i;
    const t = next[i];
    next[i] = next[j];
    next[j] = t;
  }
  return next;
};
let chaseTable: Uint32Array | undefined;

/**
 * A fixed workload timed before each scenario, so runs on a VM whose speed moves can be compared:
 * the same code measured slower when this probe is slower is the host, not the code.
 */
export function hostSpeedProbe(): HostSpeed {
  const data = crypto.randomBytes(32 * 2 ** 20);
  chaseTable ??= chase();
  const best = (f: () => void) => {
    let min = Infinity;
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      f();
      min = Math.min(min, performance.now() - t);
    }
    return Math.round(min * 10) / 10;
  };
  const table = chaseTable;
  // The walk goes on where the last run stopped, so no run re-reads what the one before cached.
  let p = 0;
  const speed = {
    cpuMs: best(() => void crypto.createHash('sha256').update(data).digest()),
    memoryMs: best(() => {
      for (let i = 0; i < 500_000; i++) p = table[p];
    }),
  };
  if (p < 0) throw new Error('unreachable');
  return speed;
}
