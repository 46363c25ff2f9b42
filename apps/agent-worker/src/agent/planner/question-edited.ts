import type { FindingEditFilter } from '@corpus-chat/contracts';
import type { Scan } from './question-scan';
import { V } from './vocabulary';

/**
 * The `edited` filter ("which findings were edited?", "did operators re-rate …"): `severity` when the
 * question names it or says "re-rated", else `any`. A base form needs an auxiliary ("did … change").
 */
export function findEdited(s: Scan): FindingEditFilter | undefined {
  const W = s.words;
  const filler = (w = '') => V.editGlue.has(w) || V.auxiliary.has(w) || V.actor.has(w);
  for (let i = 0; i < W.length; i++) {
    const rerate = V.rerate.has(W[i]);
    const past = V.editPast.has(W[i]);
    const base = V.editBase.has(W[i]) && W.slice(Math.max(0, i - 3), i).some((w) => V.auxiliary.has(w));
    if (!rerate && !past && !base) continue;
    // The field right after ("change the severity of") or right before ("whose severity was changed").
    const field = [i + 1, i + 2, i - 1, i - 2, i - 3].find((k) => V.severityField.has(W[k]));
    if (field === undefined && !past && !rerate) continue;
    const span = field === undefined ? [i] : [i, field];
    const [from, to] = [Math.min(...span), Math.max(...span)];
    for (let k = from; k <= to; k++) if (filler(W[k])) span.push(k);
    if (W[to + 1] === 'of' && V.severityField.has(W[to])) span.push(to + 1);
    if (W[to + 1] === 'by' && V.actor.has(W[to + 2])) span.push(to + 1, to + 2);
    // "did operators change", "have analysts re-rated": the auxiliary and the actor before the verb.
    for (let k = from - 1; k >= 0 && k >= from - 3 && filler(W[k]); k--) span.push(k);
    for (const k of span) s.consume([k, k + 1]);
    return field !== undefined || rerate ? 'severity' : 'any';
  }
  return undefined;
}
