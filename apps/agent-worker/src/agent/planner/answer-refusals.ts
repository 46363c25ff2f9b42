/**
 * The answers that carry no count, in any language: what the planner can answer, refusals, parts of
 * a question it could not apply and report names it could not resolve.
 */
import { md, words, type AnswerLanguage } from './answer-languages';
import { scopePhrase } from './answer-writer';
import type { PlannedQuestion, Unapplied } from './question-plan';

export function refusalsFor(L: AnswerLanguage) {
  const m = L.messages.format;
  const capabilities = m('capabilities');

  /**
   * What a plan would have answered, in words, for a refusal ("the number of findings with severity
   * critical").
   */
  function understood(plan: PlannedQuestion): string {
    const scoped = 'filter' in plan ? scopePhrase(L, plan.filter, plan.scope) : '';
    const withScope = scoped ? m('understood.scope', { scope: scoped }) : '';
    const groupBy = 'groupBy' in plan ? plan.groupBy : undefined;
    // Each kind a refusal can describe has its message; any other is described generally.
    const kind = L.messages.has(`understood.${plan.kind}`) ? plan.kind : 'other';
    return m(`understood.${kind}`, { withScope, groupBy });
  }

  return {
    outOfScope: (reason: 'write' | 'unknown') => m(`outOfScope.${reason}`, { capabilities }),
    /** The answer to a message longer than the planner reads (`length` characters, the limit `max`). */
    tooLong: (length: number, max: number) => m('tooLong', { length, max, capabilities }),
    /**
     * A question with parts the planner cannot apply: names each part and why, gives no number (a
     * count without that part would answer a different question), and says what it can answer instead.
     */
    unsupported(parts: Unapplied[], plan: PlannedQuestion): string {
      const lines = [m('unsupported.head', { names: parts.map((p) => L.quote(p.text)).join(', ') })];
      for (const p of parts) lines.push(m(`reason.${p.reason}`, { q: L.quote(p.text) }));
      lines.push(m('unsupported.noCount'));
      lines.push('', m('unsupported.instead', { understood: understood(plan), parts: parts.length }));
      const topicLike = parts.find((p) => p.topicLike);
      if (topicLike)
        lines.push(m('unsupported.topic', { q: L.quote(topicLike.text), words: words(topicLike.text) }));
      return lines.join('\n');
    },
    /** A report named by part of its file name matches no report, or several. */
    reportHint(hint: { text: string; loose: boolean }, matches: string[]): string {
      const q = L.quote(hint.text);
      if (!matches.length)
        return (
          m('hint.none', { lead: m(hint.loose ? 'hint.loose' : 'hint.strict', { q }), q }) +
          (hint.loose ? m('hint.topic', { q, words: words(hint.text) }) : '')
        );
      const lines = [m('hint.several', { q })];
      for (const name of matches.slice(0, 20)) lines.push(`- ${md(name)}`);
      if (matches.length > 20) lines.push('- …');
      lines.push('', m('hint.again'));
      return lines.join('\n');
    },
  };
}
