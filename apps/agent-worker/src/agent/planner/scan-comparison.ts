import type { Scan } from './question-scan';
import { V } from './vocabulary';

/** Which part of the comparison the question asks for; `all`: the three counts. */
export type ComparisonAsked = 'new' | 'fixed' | 'unchanged' | 'all';

export interface ComparisonPlan {
  kind: 'compare';
  asked: ComparisonAsked;
  /** The older report's file name as the operator wrote it. */
  baseline: string;
  /** The newer report's file name; absent for "since A" (the latest scan of A's target). */
  report?: string;
  /** False when the question named two scans without saying which is older. */
  ordered: boolean;
}

/**
 * A scan comparison (IMPORT-RULES.md "Finding identity and scan comparison"), or undefined: one or
 * two report file names and what is new, fixed, unchanged or different. The words order them ("between
 * A and B", "B compared with A", "since A"); two scans named without an order leave it to their scan times.
 */
export function findComparison({ tokens, words }: Scan): ComparisonPlan | undefined {
  const reports = tokens.map((t, i) => [t, i] as const).filter(([t]) => t.kind === 'report');
  if (reports.length < 1 || reports.length > 2) return undefined;
  const asked = (['new', 'fixed', 'unchanged', 'all'] as const).find((k) =>
    words.some((w) => V.comparison[k].has(w)),
  );
  if (!asked) return undefined;
  const name = (k: number) => String(reports[k][0].value);
  const before = (k: number) => words.slice(Math.max(0, reports[k][1] - 2), reports[k][1]);

  if (reports.length === 1) {
    // "What's new since A?", "what is new compared with A?": A is the baseline, the latest scan the report.
    return before(0).some((w) => /^(since|after|with|to|than|against)$/.test(w))
      ? { kind: 'compare', asked, baseline: name(0), ordered: true }
      : undefined;
  }
  const between = words.slice(reports[0][1] + 1, reports[1][1]);
  // "between A and B", "from A to B": in that order; "Compare A and B", "A or B": two scans, no order.
  const inOrder =
    before(0).some((w) => /^(between|from)$/.test(w)) && between.some((w) => /^(and|to)$/.test(w));
  // "B compared with A", "B since A": the second is the baseline.
  const second = !inOrder && between.some((w) => V.secondIsBaseline.has(w));
  const [baseline, report] = second ? [name(1), name(0)] : [name(0), name(1)];
  return { kind: 'compare', asked, baseline, report, ordered: inOrder || second };
}
