import fs from 'node:fs';

/** A V8 `.cpuprofile` (what `node --cpu-prof` writes). */
interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    hitCount?: number;
    children?: number[];
  }[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Self time of one function or one package in a profile. */
export interface ProfileEntry {
  name: string;
  ms: number;
  percent: number;
}

/** Where a source URL belongs: the npm package, our own project folder, or node internals. */
export function ownerOf(url: string): string {
  if (!url) return '(native / idle / GC)';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1];
  if (url.startsWith('node:')) return 'node internals';
  const ours = /\/(apps\/[^/]+|libs\/[^/]+)\//.exec(url);
  return ours ? ours[1] : url;
}

/** A profile's nodes by id and the self time (µs) of each busy one (idle and `(program)` left out). */
function load(file: string) {
  const p = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const nodes = new Map(p.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  let busy = 0;
  p.samples.forEach((id, i) => {
    const fnName = nodes.get(id)!.callFrame.functionName;
    if (fnName === '(idle)' || fnName === '(program)') return;
    selfUs.set(id, (selfUs.get(id) ?? 0) + (p.timeDeltas[i] ?? 0));
    busy += p.timeDeltas[i] ?? 0;
  });
  return { p, nodes, selfUs, busy };
}

/** The `top` largest of `m` (name → µs) as entries, with their share of `busy`. */
const largest = (m: Map<string, number>, top: number, busy: number): ProfileEntry[] =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, us]) => ({ name, ms: us / 1000, percent: (100 * us) / busy }));

/**
 * Self time by function and by package of a `.cpuprofile` file, largest first (the `top` of each).
 * Idle time (`(idle)`) is left out of the percentages.
 */
export function summarizeProfile(
  file: string,
  top = 15,
): { byFunction: ProfileEntry[]; byPackage: ProfileEntry[]; busyMs: number } {
  const { nodes, selfUs, busy } = load(file);
  const byFn = new Map<string, number>();
  const byPkg = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const f = nodes.get(id)!.callFrame;
    const pkg = f.functionName === '(garbage collector)' ? '(garbage collector)' : ownerOf(f.url);
    const fn = `${f.functionName || '(anonymous)'} ${pkg}${f.url ? `:${f.lineNumber + 1}` : ''}`;
    byFn.set(fn, (byFn.get(fn) ?? 0) + us);
    byPkg.set(pkg, (byPkg.get(pkg) ?? 0) + us);
  }
  return { byFunction: largest(byFn, top, busy), byPackage: largest(byPkg, top, busy), busyMs: busy / 1000 };
}

/**
 * Inclusive (self + callees) time of the functions whose source matches `filter` (default: this
 * repository's apps and libs), largest first: which of our functions the CPU time is spent under.
 */
export function inclusiveTimes(
  file: string,
  filter: (url: string) => boolean = (u) => /\/(apps|libs)\//.test(u) && !u.includes('node_modules'),
  top = 20,
): ProfileEntry[] {
  const { p, nodes, selfUs, busy } = load(file);
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const incl = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const f = nodes.get(cur)!.callFrame;
      if (!filter(f.url)) continue;
      const key = `${f.functionName || '(anonymous)'} ${ownerOf(f.url)}:${f.lineNumber + 1}`;
      if (seen.has(key)) continue; // recursion counts once
      seen.add(key);
      incl.set(key, (incl.get(key) ?? 0) + us);
    }
  }
  return largest(incl, top, busy);
}

/** `node tools/cli/run-ts.mjs bench/lib/cpu-profile.ts <file.cpuprofile> [top]` prints the summary. */
if (process.argv[1] === __filename) {
  const [file, top] = process.argv.slice(2);
  const s = summarizeProfile(file, Number(top ?? 25));
  const print = (title: string, entries: ProfileEntry[]) => {
    console.log(title);
    for (const e of entries)
      console.log(`  ${e.percent.toFixed(1).padStart(5)} %  ${e.ms.toFixed(0).padStart(7)} ms  ${e.name}`);
  };
  print(`busy ${s.busyMs.toFixed(0)} ms\n\nby package:`, s.byPackage);
  print('\nby function (self time):', s.byFunction);
  print('\nour functions (inclusive time):', inclusiveTimes(file));
}
