/**
 * "What percentage of findings are critical?", "what share of the Nessus findings are
 * informational?": a part of a whole, both exact counts. The whole is the phrase between "of" and
 * its finding noun ("the Nessus findings"); the part is the whole question read as a count. Parsed
 * by `parseQuestion` itself, so every word is applied (or the plan is unsupported) exactly as in a
 * count.
 */
import type { FindingFilter } from '@corpus-chat/contracts';
import type { PlannedQuestion, PreviousAnswer } from './question-plan';
import type { Scan } from './question-scan';
import { FINDING_NOUNS, SHARE_WORDS } from './vocabulary';

type Parse = (question: string, previous: PreviousAnswer) => PlannedQuestion;

/** The share plan of a question with a share word, or `unsupported` when the part is not a subset of the whole. */
export function parseShare(s: Scan, previous: PreviousAnswer, parse: Parse): PlannedQuestion {
  const k = s.words.findIndex((w) => SHARE_WORDS.has(w));
  const of = s.words.indexOf('of', k);
  const noun = of < 0 ? -1 : s.words.findIndex((w, i) => i > of && FINDING_NOUNS.has(w));
  const text = (a: number, b: number) =>
    a < b ? s.source.slice(s.tokens[a].start, s.tokens[b - 1].end) : '';
  const asCount =
    of < 0
      ? `how many findings ${text(k + 1, s.tokens.length)}`
      : `how many ${text(of + 1, s.tokens.length)}`;
  // Words before "of" are read here, not by the count: anything but scaffolding is not applied.
  const head = s.words
    .slice(0, of < 0 ? k + 1 : of)
    .filter(
      (w, i) =>
        i !== k &&
        !/^(what|what's|whats|which|is|are|the|a|an|give|me|show|tell|please|how|much|big|large|of)$/.test(
          w,
        ) &&
        !/^[?!.,]$/.test(w),
    );
  if (head.length)
    return {
      kind: 'unsupported',
      parts: [{ text: head.join(' '), reason: 'unknown' }],
      understood: parse(asCount, previous),
    };
  const part = parse(asCount, previous);
  const whole =
    noun < 0
      ? parse('how many findings are there?', previous)
      : parse(`how many ${text(of + 1, noun + 1)}?`, previous);
  if (part.kind !== 'count_findings' || whole.kind !== 'count_findings') {
    return part.kind === 'unsupported' || part.kind === 'out_of_scope' || part.kind === 'no_previous'
      ? part
      : { kind: 'unsupported', parts: [{ text: s.source, reason: 'combination' }], understood: part };
  }
  const subset = (Object.keys(whole.filter) as (keyof FindingFilter)[]).every(
    (key) => whole.filter[key] === part.filter[key],
  );
  const sameReport = (whole.reportHint?.text ?? '') === (part.reportHint?.text ?? '');
  if (!subset || !sameReport || part.scope || whole.scope || part.list) {
    return { kind: 'unsupported', parts: [{ text: s.source, reason: 'combination' }], understood: part };
  }
  const { kind: _count, list: _list, ...counting } = part;
  return { kind: 'share', whole: whole.filter, ...counting };
}
