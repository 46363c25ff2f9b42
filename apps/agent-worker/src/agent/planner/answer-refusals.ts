/**
 * The planner's English answers that carry no count: what it can answer, refusals, parts of a
 * question it could not apply and report names it could not resolve. Russian: `answer-refusals-ru.ts`.
 */
import { md, quote, words } from './answer-text';
import { scopePhrase } from './answer-writer';
import type { PlannedQuestion, Unapplied } from './question-plan';

/** What the planner can answer (no numbers at all, so nothing can be mistaken for a count). */
const CAPABILITIES =
  'I answer questions about the imported reports and their findings with exact counts from read-only queries, for example:\n' +
  '- how many reports or findings there are, optionally of a severity (or several, like "high or critical", "not info"), in a report, with a verdict, a triage status or a CWE id;\n' +
  '- how many findings relate to a topic such as SQL injection, XSS or jQuery (or do not);\n' +
  '- which report has the most findings or criticals, or the top reports by a severity;\n' +
  '- a breakdown of findings by severity, CWE, verdict or triage status;\n' +
  '- the list of reports, and the details of a finding by its id;\n' +
  '- follow-ups such as "and how many of those are high?" or "show the first one".\n\n' +
  'This is the built-in planner. For other questions, an administrator can configure a model server in Settings.';

export function outOfScopeAnswer(reason: 'write' | 'unknown'): string {
  if (reason === 'write') {
    return `I can't do that: I only read the corpus, and none of my tools can delete, change or import anything. Reports are managed on the Reports page.\n\n${CAPABILITIES}`;
  }
  return `I can't answer that from the corpus.\n\n${CAPABILITIES}`;
}

/** The answer to a message longer than the planner reads (`length` characters, the limit `max`). */
export function tooLongAnswer(length: number, max: number): string {
  return (
    `That message is ${length.toLocaleString('en')} characters long; I read questions of up to ${max.toLocaleString('en')} characters, so I did not read it. ` +
    'Ask one question at a time, for example "how many findings relate to SQL injection?".\n\n' +
    CAPABILITIES
  );
}

export const NO_PREVIOUS_ANSWER =
  'I have nothing earlier in this thread that this could refer to (no previous count, or no finding listed). Ask the whole question, for example "how many findings relate to SQL injection?" or "list the reports".';

/** What a plan would have answered, in words, for a refusal ("the number of findings with severity critical"). */
function understoodPhrase(plan: PlannedQuestion): string {
  const scoped = 'filter' in plan ? scopePhrase(plan.filter, plan.scope) : '';
  const withScope = scoped ? ` with ${scoped}` : '';
  switch (plan.kind) {
    case 'count_findings':
      return `the number of findings${withScope}`;
    case 'top':
      return `which ${plan.groupBy === 'report' ? 'reports' : 'CWE ids'} have the most findings${withScope}`;
    case 'breakdown':
      return `findings${withScope} by ${plan.groupBy === 'cwe' ? 'CWE' : plan.groupBy}`;
    case 'reports_with':
      return `how many reports have findings${withScope}`;
    case 'count_reports':
      return 'the number of reports';
    case 'list_reports':
      return 'the list of reports';
    case 'overview':
      return 'an overview of the corpus';
    default:
      return 'questions about the corpus';
  }
}

const REASON_TEXT: Record<Unapplied['reason'], (p: Unapplied) => string> = {
  time: () =>
    "No tool filters by date: they know a finding's severity, text, report, CWE ids and verdict, but not when it was imported or found.",
  negation: (p) => `I didn't understand what ${quote(p.text)} leaves out.`,
  combination: (p) =>
    `I can't turn ${quote(p.text)} into one exact count together with the rest of the question (the text search cannot compare numbers or combine topics, and I combine only one exclusion at a time).`,
  order: (p) =>
    `I rank only from the most: ${quote(p.text)} would need every report or CWE id with no matching finding, which a grouped count leaves out.`,
  unknown: (p) => `I don't know ${quote(p.text)} as a severity, report, CWE id, verdict or topic.`,
};

/**
 * Answer to a question with parts the planner cannot apply: names each part and why, gives no
 * number (a count without that part would answer a different question), and says what it can
 * answer instead.
 */
export function unsupportedAnswer(parts: Unapplied[], understood: PlannedQuestion): string {
  const names = parts.map((p) => quote(p.text)).join(', ');
  const lines = [`I can't give an exact number for that: I couldn't apply ${names}.`];
  for (const p of parts) lines.push(REASON_TEXT[p.reason](p));
  lines.push('A count without it would answer a different question, so I am not giving one.');
  lines.push(
    '',
    `What I can answer is ${understoodPhrase(understood)}: ask again without ${parts.length === 1 ? 'that part' : 'those parts'}.`,
  );
  const topicLike = parts.find((p) => p.topicLike);
  if (topicLike)
    lines.push(
      `If ${quote(topicLike.text)} is a topic, ask "how many findings mention ${words(topicLike.text)}?".`,
    );
  return lines.join('\n');
}

/** Answer when a report named by part of its file name matches no report, or several. */
export function reportHintAnswer(hint: { text: string; loose: boolean }, matches: string[]): string {
  if (!matches.length) {
    const lead = hint.loose
      ? `I can't give an exact number for that: I couldn't apply ${quote(hint.text)}.`
      : `I can't give a number for that report:`;
    return (
      `${lead} No report's file name matches ${quote(hint.text)}, and I don't know it as a severity, CWE id, verdict or topic either.\n\n` +
      'Ask "list the reports" to see every file name, then ask again with one of them (a part of the name is enough when it is unique).' +
      (hint.loose
        ? ` If ${quote(hint.text)} is a topic, ask "how many findings mention ${words(hint.text)}?".`
        : '')
    );
  }
  const lines = [
    `I can't give a number yet: ${quote(hint.text)} matches more than one report, and counting them all would not answer for the one you mean:`,
  ];
  for (const m of matches.slice(0, 20)) lines.push(`- ${md(m)}`);
  if (matches.length > 20) lines.push('- …');
  lines.push('', 'Ask again with the file name (or a part of it that only one report has).');
  return lines.join('\n');
}
