import type { Scan } from './question-scan';
import { V } from './vocabulary';

/**
 * Scan comparison questions (IMPORT-RULES.md "Finding identity and scan comparison"): "What is new
 * in B compared with A?", "How many findings were fixed between A and B?", "… unchanged between A
 * and B?", "What's new since A?", "Compare A and B". The operator's words decide the baseline;
 * two scans named without an order leave it to the recorded scan times (`ordered: false`).
 */

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
 * Reads a comparison question from its tokens, or undefined when it is none: it must name
 * one or two report file names and ask what is new, fixed, unchanged or different, with the words
 * that order them ("between A and B", "from A to B", "B compared with A", "since A").
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
  if (
    before(0).some((w) => w === 'between' || w === 'from') &&
    between.some((w) => w === 'and' || w === 'to')
  ) {
    return { kind: 'compare', asked, baseline: name(0), report: name(1), ordered: true };
  }
  // "B compared with A", "B since A": the second is the baseline.
  if (between.some((w) => V.secondIsBaseline.has(w)))
    return { kind: 'compare', asked, baseline: name(1), report: name(0), ordered: true };
  // "Compare A and B", "A or B": two scans, no order.
  return { kind: 'compare', asked, baseline: name(0), report: name(1), ordered: false };
}
