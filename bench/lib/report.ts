import fs from 'node:fs';
import path from 'node:path';
import type { BenchStack } from './stack';
import type { MachineInfo } from './machine';
import { PRIMITIVE_LABELS, type PrimitiveName, type Primitives } from './primitives';
import { fmt, type Summary, summaryCells } from './stats';

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
  /** The bare primitive this latency is a multiple of (`measurePrimitives`), for the ratio columns. */
  primitive?: PrimitiveName;
}

/** What a scenario hands back: its figures, Markdown for the document, and the raw data. */
export interface ScenarioResult {
  id: number;
  title: string;
  figures: Figure[];
  /** Tables and notes, Markdown. */
  markdown: string[];
  raw: Record<string, unknown>;
  /** The primitives timed just before the scenario (set by bench/run.ts). */
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
  machine: MachineInfo;
  logsDir: string;
  log: (m: string) => void;
}

/** A latency figure with an upper bound on one percentile (`goal` names it). */
export function latencyFigure(
  name: string,
  summary: Summary,
  bound?: { p: 'p50' | 'p95' | 'p99' | 'max'; ms: number },
  primitive?: PrimitiveName,
): Figure {
  return {
    name,
    unit: 'ms',
    summary,
    ...(bound ? { goal: `${bound.p} ≤ ${bound.ms} ms`, met: summary[bound.p] <= bound.ms } : {}),
    ...(primitive ? { primitive } : {}),
  };
}

/** `p50× · p99×` of a latency over its primitive's, with the primitive's name; '' without one. */
function ratioCell(f: Figure, primitives?: Primitives): string {
  if (!f.summary || !f.primitive || !primitives) return '';
  const p = primitives[f.primitive];
  return `${fmt(f.summary.p50 / p.p50)} · ${fmt(f.summary.p99 / p.p99)} × ${PRIMITIVE_LABELS[f.primitive]}`;
}

/** The primitives of a run as one Markdown line. */
export function primitivesLine(p: Primitives): string {
  const one = (k: PrimitiveName) => `${PRIMITIVE_LABELS[k]} p50 ${fmt(p[k].p50)} / p99 ${fmt(p[k].p99)} ms`;
  return `Primitives timed before the scenario (n=${p.bullmq.n} each): ${one('bullmq')}; ${one('socket')}; ${one('postgres')}.`;
}

const verdict = (f: Figure) => (f.met === undefined ? '' : f.met ? 'met' : '**MISSED**');

/** The figures as a Markdown table (latencies and values together). */
export function figuresTable(figures: Figure[], primitives?: Primitives): string {
  const lines = [
    '| figure | p50 | p95 | p99 | max | value | p50 · p99 as a multiple of the primitive | goal | |',
    '|---|---:|---:|---:|---:|---:|---|---|---|',
  ];
  for (const f of figures) {
    const cells = f.summary ? summaryCells(f.summary) : ['', '', '', ''];
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

/** Writes a scenario's JSON result into bench/results/ and returns its path. */
export function writeResult(dir: string, r: ScenarioResult, extra: Record<string, unknown>): string {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `scenario-${r.id}.json`);
  fs.writeFileSync(file, JSON.stringify({ ...extra, ...r }, null, 2));
  return file;
}
