import { mergeFilters } from './follow-up-scope';
import { V } from './vocabulary';
import type { PlannedQuestion } from './question-plan';

/**
 * Words that point at the thread's attached file: "this file", "the attachment", "the uploaded
 * report", "in it", "does it contain". Matched only when the thread has an attachment.
 */
const ATTACHMENT_REFERENCES = [
  /\b(?:this|that|the|my)\s+(?:attached\s+|uploaded\s+|new\s+)?(?:file|attachment|upload|export)\b/gi,
  /\b(?:this|that|the)\s+(?:attached|uploaded)\s+(?:report|scan)\b/gi,
  /\b(?:this|that)\s+(?:report|scan)\b/gi,
  /\battachment\b/gi,
  /\b(?:in|of|from|inside|within)\s+it\b/gi,
  /\b(?:does|did)\s+it\s+(?:contain|have|hold|include)\b/gi,
  /\bit\s+(?:contains|has|holds|includes)\b/gi,
];

/** A question about the attachment: the rest of the question, and whether it asked for an overview. */
export interface AttachmentQuestion {
  /** The question with the words pointing at the attachment taken out. */
  rest: string;
  overview: boolean;
}

/** `question` as a question about the attached file, or null when it does not point at it. */
export function attachmentQuestion(question: string): AttachmentQuestion | null {
  const replaced = ATTACHMENT_REFERENCES.reduce((r, pattern) => r.replace(pattern, ' '), question);
  // Each reference has letters, so the message changed exactly when one was taken out.
  if (replaced === question) return null;
  const rest = replaced
    .replace(/\s+/g, ' ')
    .replace(/\s+([?.!,])/g, '$1')
    .trim();
  const words =
    rest
      .toLowerCase()
      .replace(/’/g, "'")
      .match(/[a-z']+/g) ?? [];
  return { rest, overview: words.every((w) => V.attachmentOverview.has(w)) };
}

/** The plan for the rest of a question about attached report `reportId`: its filter names that report. */
export function scopeToReport(plan: PlannedQuestion, reportId: number): PlannedQuestion {
  if (!('filter' in plan)) return plan;
  const { reportHint: _hint, ...rest } = plan;
  return { ...rest, filter: mergeFilters(plan.filter, { reportId }) } as PlannedQuestion;
}
