import { mergeFilters } from './follow-up-scope';
import { V } from './vocabulary';
import type { PlannedQuestion } from './question-plan';
import data from './vocabulary.data.json';

/** Words that point at the attached file ("this file", "in it"), matched only when the thread has one. */
const ATTACHMENT_REFERENCES = data.attachmentReferences.map((source) => new RegExp(source, 'gi'));

/**
 * `question` as a question about the attached file (the rest of it, without the words pointing at the
 * file, and whether it asked for an overview), or null when it does not point at it.
 */
export function attachmentQuestion(question: string): { rest: string; overview: boolean } | null {
  const replaced = ATTACHMENT_REFERENCES.reduce((r, pattern) => r.replace(pattern, ' '), question);
  // Each reference has letters, so the message changed exactly when one was taken out.
  if (replaced === question) return null;
  const rest = replaced
    .replace(/\s+/g, ' ')
    .replace(/\s+([?.!,])/g, '$1')
    .trim();
  const lower = rest.toLowerCase().replace(/’/g, "'");
  return { rest, overview: (lower.match(/[a-z']+/g) ?? []).every((w) => V.attachmentOverview.has(w)) };
}

/** The plan for the rest of a question about attached report `reportId`: its filter names that report. */
export function scopeToReport(plan: PlannedQuestion, reportId: number): PlannedQuestion {
  if (!('filter' in plan)) return plan;
  const { reportHint: _hint, ...rest } = plan;
  return { ...rest, filter: mergeFilters(plan.filter, { reportId }) } as PlannedQuestion;
}
