/**
 * "What percentage of findings in the burp reports are high?": the question read as a count is the
 * part; the whole is the part without the asked property (what follows the finding noun, else what
 * precedes it) and keeps every scope the question names ("in the burp reports" scopes the whole).
 */
import type { FindingFilter } from '@corpus-chat/contracts';
import type { PlannedQuestion, PreviousAnswer } from './question-plan';
import type { Scan } from './question-scan';
import { V } from './vocabulary';

type Parse = (question: string, previous: PreviousAnswer) => PlannedQuestion;
type Key = keyof FindingFilter;

/** Filter keys that say where findings are (which reports), never what they are. */
const SCOPE_KEYS: readonly Key[] = ['reportName', 'reportId', 'format', 'scanner', 'includeArchived'];

/** Share phrasings without a share word, rewritten to one before parsing: "%", "what part of", "how much of". */
export function shareWording(question: string): string {
  return question
    .replace(/(^|\s)%(?=\s|$)/g, '$1percent')
    .replace(/\b(what|which)\s+part\s+of\b/gi, 'what share of')
    .replace(/\bhow\s+much\s+of\b/gi, 'what share of');
}

/** The share plan of a question with a share word, or `unsupported` when it is not one part of one whole. */
export function parseShare(s: Scan, previous: PreviousAnswer, parse: Parse): PlannedQuestion {
  const k = s.words.findIndex((w) => V.share.has(w));
  const of = s.words.indexOf('of', k);
  const noun = of < 0 ? -1 : s.words.findIndex((w, i) => i > of && V.finding.has(w));
  const text = (a: number, b: number) =>
    a < b ? s.source.slice(s.tokens[a].start, s.tokens[b - 1].end) : '';
  const asCount =
    of < 0
      ? `how many findings ${text(k + 1, s.tokens.length)}`
      : `how many ${text(of + 1, s.tokens.length)}`;
  // Words before "of" are read here, not by the count: anything but scaffolding is not applied,
  // and is quoted as the operator wrote it (a report name, not its `⟨report⟩` word).
  const head = s.tokens
    .slice(0, of < 0 ? k + 1 : of)
    .filter((t, i) => i !== k && !V.shareHead.has(s.words[i]) && t.kind !== 'punct');
  const part = parse(asCount, previous);
  if (head.length) {
    const quoted = head.map((t) => t.orig).join(' ');
    return { kind: 'unsupported', parts: [{ text: quoted, reason: 'unknown' }], understood: part };
  }
  if (part.kind !== 'count_findings') {
    return part.kind === 'unsupported' || part.kind === 'out_of_scope' || part.kind === 'no_previous'
      ? part
      : { kind: 'unsupported', parts: [{ text: s.source, reason: 'combination' }], understood: part };
  }
  const named = noun < 0 ? undefined : parse(`how many ${text(of + 1, noun + 1)}?`, previous);
  const before = named && 'filter' in named ? named.filter : {};
  const keys = Object.keys(part.filter) as Key[];
  const properties = keys.filter((key) => !SCOPE_KEYS.includes(key));
  const after = properties.filter((key) => before[key] === undefined);
  // A report named by part of its name is resolved later; it is the asked part only when nothing else is.
  const hintAsked =
    !properties.length &&
    !!part.reportHint &&
    !(named && 'reportHint' in named && named.reportHint?.text === part.reportHint.text);
  const asked = after.length
    ? after
    : properties.length
      ? properties
      : keys.filter((key) => before[key] === undefined);
  if (part.scope || part.list || (!asked.length && !hintAsked)) {
    return { kind: 'unsupported', parts: [{ text: s.source, reason: 'combination' }], understood: part };
  }
  const whole = Object.fromEntries(
    Object.entries(part.filter).filter(([key]) => !asked.includes(key as Key)),
  ) as FindingFilter;
  const attached = (Object.keys(whole) as Key[]).filter((key) => SCOPE_KEYS.includes(key));
  const { kind: _count, list: _list, ...counting } = part;
  return {
    kind: 'share',
    whole,
    attached,
    hintInWhole: !!part.reportHint && !hintAsked,
    ...counting,
  };
}

/**
 * Why a share cannot be answered as planned, or undefined: the part must be the whole narrowed
 * (every key of the whole, with its value, in the part) and the whole must keep every scope the
 * question attached to it. Checked on the resolved plan, just before counting.
 */
export function shareFault(part: FindingFilter, whole: FindingFilter, attached: readonly Key[]) {
  const missing = attached.filter((key) => whole[key] === undefined);
  if (missing.length) return `the whole lacks the question's ${missing.join(', ')}`;
  const wider = (Object.keys(whole) as Key[]).filter((key) => whole[key] !== part[key]);
  if (wider.length) return `the part is not within the whole (${wider.join(', ')})`;
  return undefined;
}
