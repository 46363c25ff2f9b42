import type { BenchStack } from './stack';
import { PRIMITIVE_LABELS, type PrimitiveName, type Primitives } from './primitives';
import { fmt, type Summary } from './stats';

/** One measured figure, with its goal when the issue sets one. */
export interface Figure {
  name: string;
  unit: string;
  /** A latency distribution (p50/p95/p99/max). */
  summary?: Summary;
  /** A single value (throughput, ratio, memory). */
  value?: number;
  /** The goal as written in the issue, and whether this run met it (undefined: no goal). */
  goal?: string;
  met?: boolean;
  /**
   * The bare primitives this latency is made of (`measurePrimitives`): their sum is its ratio's
   * denominator.
   */
  of?: PrimitiveName[];
  /** Goals as a multiple of that sum, judged by `judge` once the run's primitives are known. */
  ratioGoals?: RatioGoal[];
}

/** An upper bound on one percentile: in ms, or as a multiple of the figure's primitives' sum. */
export type Bound = { p: 'p50' | 'p95' | 'p99' | 'max' } & ({ ms: number } | { times: number });
type RatioGoal = Bound & { times: number };

/** What a scenario hands back: its figures, Markdown for the document, and the raw data. */
export interface ScenarioResult {
  id: number;
  title: string;
  figures: Figure[];
  /** Tables and notes, Markdown. */
  markdown: string[];
  raw: Record<string, unknown>;
  /** The primitives timed in the scenario's run (set by bench/run.ts). */
  primitives?: Primitives;
}

/** What every scenario gets. */
export interface BenchContext {
  quick: boolean;
  /** Write V8 CPU profiles of the API and workers (`--profile`). */
  profile: boolean;
  /** TEXT_DELTA_COALESCE_MS of the workers (`--coalesce-ms`, default 16; scenario 5 compares it with 0). */
  coalesceMs: number;
  stack: BenchStack;
  /** Timed just before the scenario; a scenario adds those that need its processes (`http`). */
  primitives: Primitives;
  logsDir: string;
  log: (m: string) => void;
}

/**
 * A latency figure made of the primitives `of`, with bounds in ms or as a multiple (`times`) of
 * the sum of those primitives' same percentile in this run.
 */
export function latencyFigure(
  name: string,
  summary: Summary,
  of?: PrimitiveName | PrimitiveName[],
  ...bounds: Bound[]
): Figure {
  const f: Figure = { name, unit: 'ms', summary, ...(of ? { of: [of].flat() } : {}) };
  const ms = bounds.filter((b): b is Bound & { ms: number } => 'ms' in b);
  const ratios = bounds.filter((b): b is RatioGoal => 'times' in b);
  if (ratios.length) f.ratioGoals = ratios;
  if (ms.length) {
    f.goal = ms.map((b) => `${b.p} ≤ ${b.ms} ms`).join(', ');
    f.met = ms.every((b) => summary[b.p] <= b.ms);
  }
  return f;
}

/** A single value judged against a goal (`goal` as printed, `met` this run's verdict). */
export function goalFigure(name: string, unit: string, value: number, goal: string, met: boolean): Figure {
  return { name, unit, value, goal, met };
}

/** The sum of the figure's primitives at percentile `p`; NaN when one was not timed. */
function reference(f: Figure, primitives: Primitives, p: RatioGoal['p']): number {
  return (f.of ?? []).reduce((sum, k) => sum + (primitives[k]?.[p] ?? NaN), 0);
}

/** Sets the goal and verdict of every ratio goal from the run's primitives. */
export function judge(figures: Figure[], primitives: Primitives): void {
  for (const f of figures) {
    if (!f.ratioGoals || !f.summary) continue;
    const summary = f.summary;
    f.goal = f.ratioGoals.map((b) => `${b.p} ≤ ${b.times}×`).join(', ');
    f.met = f.ratioGoals.every((b) => summary[b.p] / reference(f, primitives, b.p) <= b.times);
  }
}

/** `p50× · p99×` of a latency over the sum of its primitives, with their names; '' without one. */
function ratioCell(f: Figure, primitives?: Primitives): string {
  if (!f.summary || !f.of || !primitives) return '';
  const names = f.of.map((k) => PRIMITIVE_LABELS[k]).join(' + ');
  return `${fmt(f.summary.p50 / reference(f, primitives, 'p50'))} · ${fmt(f.summary.p99 / reference(f, primitives, 'p99'))} × ${names}`;
}

/** The primitives of a run as one Markdown line. */
export function primitivesLine(p: Primitives): string {
  const timed = (Object.keys(PRIMITIVE_LABELS) as PrimitiveName[]).filter((k) => p[k]);
  const one = (k: PrimitiveName) => `${PRIMITIVE_LABELS[k]} p50 ${fmt(p[k]!.p50)} / p99 ${fmt(p[k]!.p99)} ms`;
  return `Primitives timed in the scenario's run (n=${p.bullmq?.n} each): ${timed.map(one).join('; ')}.`;
}

const verdict = (f: Figure) => (f.met === undefined ? '' : f.met ? 'met' : '**MISSED**');

/** The figures as a Markdown table (latencies and values together). */
export function figuresTable(figures: Figure[], primitives?: Primitives): string {
  const lines = [
    '| figure | p50 | p95 | p99 | max | value | p50 · p99 as a multiple of the primitive | goal | |',
    '|---|---:|---:|---:|---:|---:|---|---|---|',
  ];
  for (const f of figures) {
    const s = f.summary;
    const cells = s ? [s.p50, s.p95, s.p99, s.max].map(fmt) : ['', '', '', ''];
    const value = f.value !== undefined ? `${fmt(f.value)} ${f.unit}` : '';
    const unit = f.summary ? ` (${f.unit}, n=${f.summary.n})` : '';
    lines.push(
      `| ${f.name}${unit} | ${cells.join(' | ')} | ${value} | ${ratioCell(f, primitives)} | ${f.goal ?? ''} | ${verdict(f)} |`,
    );
  }
  return lines.join('\n');
}

/** Prints a scenario's result on the console. */
export function printResult(r: ScenarioResult, machineLine: string): void {
  console.log(`\n## Scenario ${r.id}: ${r.title}\n`);
  console.log(`machine: ${machineLine}\n`);
  console.log(figuresTable(r.figures, r.primitives));
  if (r.primitives) console.log(`\n${primitivesLine(r.primitives)}`);
  for (const md of r.markdown) console.log(`\n${md}`);
}
