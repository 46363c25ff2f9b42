import { execFileSync } from 'node:child_process';
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

function tryRun(cmd: string, args: string[]): string {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'unknown';
  }
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
    loadAtStart: os.loadavg().map((l) => Math.round(l * 100) / 100),
  };
}

/** One line for the console and the document. */
export function machineLine(m: MachineInfo): string {
  return `${m.cores} cores (${m.cpuModel}), ${m.ramGiB} GiB RAM, Node ${m.node}, ${m.postgres}, Redis ${m.redis}, ${m.os}; load average at start ${m.loadAtStart.join(' / ')}`;
}

/** Clock ticks per second of /proc CPU times (`getconf CLK_TCK`, 100 on Linux). */
export const CLK_TCK = Number(tryRun('getconf', ['CLK_TCK'])) || 100;

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
  const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0];
  const f = line.trim().split(/\s+/).slice(1).map(Number);
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
