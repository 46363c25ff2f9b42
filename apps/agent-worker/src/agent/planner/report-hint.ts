import type { FindingFilter } from '@corpus-chat/contracts';
import type { TurnRecorder } from '../turn-recorder';
import type { AnswerWriter } from './answer-writer';
import { callOrFail } from './computed-counts';
import { mergeFilters } from './follow-up-scope';
import type { CountingPlan, PlannedScope } from './question-plan';
import { matchReportNames, matchScanners } from './report-names';

/** A report named by part of its file name, resolved: one match scopes (or excludes) it, else no number. */
export async function resolveReportHint(
  plan: CountingPlan,
  rec: TurnRecorder,
  w: AnswerWriter,
): Promise<CountingPlan | string> {
  const hint = plan.reportHint;
  if (!hint) return plan;
  const archived = plan.filter.includeArchived ? { includeArchived: true } : {};
  const r = await callOrFail(rec, 'list_all_reports', archived);
  const filenames = r.result.map((x) => x.filename);
  const matches = matchReportNames(hint.text, filenames);
  // The plan and the follow-up's own words (`asked`) changed alike.
  const both = (f: (p: PlannedScope) => PlannedScope) =>
    ({ ...plan, ...f(plan), ...(plan.asked ? { asked: f(plan.asked) } : {}) }) as CountingPlan;
  const narrowed = (part: FindingFilter) => both((p) => ({ ...p, filter: mergeFilters(p.filter, part) }));
  // "findings from semgrep": a scanner, when it names no single report ("the semgrep report" lists them).
  const scanners =
    matches.length === 1 || hint.negated || !hint.loose ? [] : matchScanners(hint.text, r.result);
  if (scanners.length) return narrowed({ scanner: scanners[0] });
  if (matches.length !== 1) return w.reportHint(hint, matches);
  const reportName = matches[0];
  if (!hint.negated) return narrowed({ reportName });
  if (plan.scope?.exclude || plan.filter.reportName || plan.filter.reportId !== undefined)
    return w.unsupported([{ text: hint.text, reason: 'combination' }], plan);
  return both((p) => ({ ...p, scope: { ...(p.scope ?? {}), exclude: { reportName } } }));
}
