/** Latency summary of a sample, in the sample's unit (milliseconds throughout the harness). */
export interface Summary {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  mean: number;
}

/** Nearest-rank percentile `q` (0–1) of an ascending-sorted array; NaN when empty. */
export function percentile(sorted: readonly number[], q: number): number {
  if (!sorted.length) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i];
}

/** p50 / p95 / p99 / max / mean of `values` (any order; non-finite values are dropped). */
export function summarize(values: readonly number[]): Summary {
  const v = values.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  const mean = v.length ? v.reduce((a, b) => a + b, 0) / v.length : NaN;
  return {
    n: v.length,
    p50: percentile(v, 0.5),
    p95: percentile(v, 0.95),
    p99: percentile(v, 0.99),
    max: v.length ? v[v.length - 1] : NaN,
    mean,
  };
}

/** A number for a table: 3 significant-ish digits (0.412, 4.12, 41.2, 412). */
export function fmt(n: number): string {
  if (!Number.isFinite(n)) return '–';
  const a = Math.abs(n);
  if (a >= 100) return n.toFixed(0);
  if (a >= 10) return n.toFixed(1);
  if (a >= 1) return n.toFixed(2);
  return n.toFixed(3);
}

/** Monotonic clock in milliseconds (fractional), comparable with the turn trace marks (µs) of other processes. */
export function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** A Markdown table. */
export function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map((_, i) => (i === 0 ? '---' : '---:'))), ...rows.map(line)].join('\n');
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
