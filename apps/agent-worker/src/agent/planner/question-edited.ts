/**
 * "How many findings did operators re-rate?", "which findings were edited?", "findings whose
 * severity was changed": the `edited` filter (`any`: findings operators edited since import;
 * `severity`: the current severity differs from version 1's). Read before the write-request check,
 * since "did operators change the severity" asks about past edits rather than for one.
 */
import type { FindingEditFilter } from '@corpus-chat/contracts';
import { consume, type Scan } from './question-scan';

/** Verbs that say the finding was re-rated whatever field follows. */
const RERATE = /^re-?(rate|rated|rates|rating|scored|classified)$/;
// Every form here is in `EDIT_WORDS` too, so the lexer keeps it as written.
/** Verbs of an edit: past forms stand alone ("were edited"); base forms need "did"/"have" before them. */
const EDIT_PAST = /^(edited|modified|changed|corrected|amended|adjusted|revised|updated)$/;
const EDIT_BASE = /^(edit|modify|change|correct|amend|adjust|revise|update)$/;
const AUXILIARY = /^(did|do|does|have|has|had|were|was|been|be|got|get)$/;
/** Words naming the severity, the one field the filter tells apart ("change the severity of"). */
const FIELD_WORDS: Record<string, FindingEditFilter> = {
  severity: 'severity',
  severities: 'severity',
  sev: 'severity',
  rating: 'severity',
  ratings: 'severity',
  risk: 'severity',
};
/** Who edits: read and dropped (every edit is an operator's). */
const ACTOR_WORDS =
  /^(operators?|analysts?|people|someone|somebody|anyone|anybody|we|they|you|users?|humans?|testers?|pentesters?|reviewers?|manually)$/;
const GLUE = /^(the|its|their|of|a|an|whose|with)$/;

/**
 * The edit the question asks about, with its words consumed, or undefined. A question naming no
 * severity counts any edit (`any`); "re-rated" is always `severity`.
 */
export function findEdited(s: Scan): FindingEditFilter | undefined {
  const W = s.words;
  for (let i = 0; i < W.length; i++) {
    if (s.used[i]) continue;
    const rerate = RERATE.test(W[i]);
    const past = EDIT_PAST.test(W[i]);
    const base = EDIT_BASE.test(W[i]) && W.slice(Math.max(0, i - 3), i).some((w) => AUXILIARY.test(w));
    if (!rerate && !past && !base) continue;
    const span: number[] = [i];
    let field: FindingEditFilter | undefined = rerate ? 'severity' : undefined;
    // The field right after ("change the severity of") or right before ("whose severity was changed").
    for (const k of [i + 1, i + 2, i - 1, i - 2, i - 3]) {
      const f = FIELD_WORDS[W[k] ?? ''];
      if (!f || s.used[k]) continue;
      if (!field) field = f;
      if (f === field) span.push(k);
      break;
    }
    if (!field && !past && !rerate) continue;
    const from = Math.min(...span);
    const to = Math.max(...span);
    for (let k = from; k <= to; k++)
      if (GLUE.test(W[k]) || AUXILIARY.test(W[k]) || ACTOR_WORDS.test(W[k])) span.push(k);
    if (W[to + 1] === 'of' && FIELD_WORDS[W[to]]) span.push(to + 1);
    if (W[to + 1] === 'by' && ACTOR_WORDS.test(W[to + 2] ?? '')) span.push(to + 1, to + 2);
    // "did operators change", "have analysts re-rated": the auxiliary and the actor before the verb.
    for (
      let k = from - 1;
      k >= 0 && k >= from - 3 && (AUXILIARY.test(W[k]) || ACTOR_WORDS.test(W[k]) || GLUE.test(W[k]));
      k--
    )
      span.push(k);
    for (const k of span) consume(s, [k, k + 1]);
    return field ?? 'any';
  }
  return undefined;
}
