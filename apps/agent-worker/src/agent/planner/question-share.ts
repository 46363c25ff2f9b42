/**
 * "What percentage of findings in the burp reports are high?": the question read as a count is the
 * part; the whole is the part without the asked property (what follows the finding noun, else what
 * precedes it) and keeps every scope the question names ("in the burp reports" scopes the whole).
 */
import type { FindingFilter } from '@corpus-chat/contracts';
import type { PlannedQuestion, PreviousAnswer, Unapplied } from './question-plan';
import type { Scan } from './question-scan';
import { V } from './vocabulary';

type Parse = (question: string, previous: PreviousAnswer) => PlannedQuestion;
type Key = keyof FindingFilter;

/** Filter keys that say where findings are (which reports), never what they are. */
const SCOPE_KEYS: readonly Key[] = ['reportName', 'reportId', 'format', 'scanner', 'includeArchived'];

/** Share phrasings without a share word ("%", "what part of", "how much of"), rewritten to one. */
export function shareWording(question: string): string {
  return question
    .replace(/(^|\s)%(?=\s|$)/g, '$1percent')
    .replace(/\b(?:(?:what|which)\s+part|how\s+much)\s+of\b/gi, 'what share of');
}

/** The share plan of a question with a share word, or `unsupported` when it is not one part of one whole. */
export function parseShare(s: Scan, previous: PreviousAnswer, parse: Parse): PlannedQuestion {
  const k = s.words.findIndex((w) => V.share.has(w));
  const of = s.words.indexOf('of', k);
  const noun = of < 0 ? -1 : s.words.findIndex((w, i) => i > of && V.finding.has(w));
  const text = (a: number, b: number) =>
    a < b ? s.source.slice(s.tokens[a].start, s.tokens[b - 1].end) : '';
  const rest = text(of < 0 ? k + 1 : of + 1, s.tokens.length);
  const part = parse(of < 0 ? `how many findings ${rest}` : `how many ${rest}`, previous);
  const unsupported = (text: string, reason: Unapplied['reason']): PlannedQuestion => ({
    kind: 'unsupported',
    parts: [{ text, reason }],
    understood: part,
  });
  // Words before "of" are read here, not by the count: anything but scaffolding is not applied,
  // and is quoted as the operator wrote it (a report name, not its `⟨report⟩` word).
  const head = s.tokens
    .slice(0, of < 0 ? k + 1 : of)
    .filter((t, i) => i !== k && !V.shareHead.has(s.words[i]) && t.kind !== 'punct');
  if (head.length) return unsupported(head.map((t) => t.orig).join(' '), 'unknown');
  if (part.kind !== 'count_findings')
    return /^(unsupported|out_of_scope|no_previous)$/.test(part.kind)
      ? part
      : unsupported(s.source, 'combination');
  const named = noun < 0 ? undefined : parse(`how many ${text(of + 1, noun + 1)}?`, previous);
  const before = named && 'filter' in named ? named.filter : {};
  const keys = Object.keys(part.filter) as Key[];
  const properties = keys.filter((key) => !SCOPE_KEYS.includes(key));
  const unnamed = (key: Key) => before[key] === undefined;
  // A report named by part of its name is resolved later; it is the asked part only when nothing else is.
  const hintAsked =
    !properties.length &&
    !!part.reportHint &&
    !(named && 'reportHint' in named && named.reportHint?.text === part.reportHint.text);
  const asked = [properties.filter(unnamed), properties, keys.filter(unnamed)].find((x) => x.length) ?? [];
  if (part.scope || part.list || (!asked.length && !hintAsked)) return unsupported(s.source, 'combination');
  const whole: FindingFilter = Object.fromEntries(
    Object.entries(part.filter).filter(([key]) => !asked.includes(key as Key)),
  );
  const attached = (Object.keys(whole) as Key[]).filter((key) => SCOPE_KEYS.includes(key));
  const { kind: _count, list: _list, ...counting } = part;
  return { kind: 'share', whole, attached, hintInWhole: !!part.reportHint && !hintAsked, ...counting };
}

/** Why a share cannot be answered as planned: the part must narrow the whole, which keeps its scopes. */
export function shareFault(part: FindingFilter, whole: FindingFilter, attached: readonly Key[]) {
  const missing = attached.filter((key) => whole[key] === undefined);
  if (missing.length) return `the whole lacks the question's ${missing.join(', ')}`;
  const wider = (Object.keys(whole) as Key[]).filter((key) => whole[key] !== part[key]);
  if (wider.length) return `the part is not within the whole (${wider.join(', ')})`;
  return undefined;
}
