/** The rows of grouped answers and the note a follow-up's answer carries, in the turn's language. */
import {
  SEVERITIES,
  VERDICT_STATUSES,
  type ComputedScope,
  type CountFindingsByResult,
  type CountGroup,
} from '@corpus-chat/contracts';
import type { AnswerLanguage } from './answer-languages';
import { scopeParts } from './answer-writer';
import type { PlannedScope } from './question-plan';

/** Groups a breakdown lists one by one before it says how many more there are. */
const BREAKDOWN_CAP = 50;

/**
 * The rows of a breakdown: every severity the scope shows and every verdict, zeros included (a zero
 * is an answer too); other groupings as the query layer ordered them, the first 50.
 */
export function breakdownRows(
  L: AnswerLanguage,
  r: CountFindingsByResult,
  scope: ComputedScope | undefined,
): string[] {
  const m = L.messages.format;
  const groupBy = r.groupBy;
  const byKey = new Map(r.groups.map((g) => [g.key, g.count]));
  const count = (key: string) => L.num(byKey.get(key) ?? 0);
  if (groupBy === 'severity') {
    const shown = scope?.severities ?? SEVERITIES;
    return SEVERITIES.filter((s) => shown.includes(s)).map((s) => `- ${L.severity(s)}: ${count(s)}`);
  }
  if (groupBy === 'verdict')
    return [...VERDICT_STATUSES, 'none' as const].map((v) => `- ${L.verdict(v)}: ${count(v)}`);
  const rows = r.groups
    .slice(0, BREAKDOWN_CAP)
    .map((g) => `- ${L.groupLabel(groupBy, g)}: ${L.num(g.count)}`);
  const hidden = r.groups.length - BREAKDOWN_CAP;
  if (hidden > 0) {
    const groupCount = m('group.count', { groupBy, n: hidden, what: '' });
    rows.push(`- … ${m('breakdown.more', { groupBy, hidden, groupCount })}`);
  }
  if (groupBy === 'cwe') rows.push('', m('breakdown.cweNote'));
  return rows;
}

/** The groups a ranking compares: those with a finding, without "no CWE". */
export function rankableGroups(r: CountFindingsByResult): CountGroup[] {
  return r.groups.filter((g) => g.count > 0 && !(r.groupBy === 'cwe' && g.key === 'none'));
}

/**
 * How a follow-up used the previous answer, truthfully, part by part (keyed like `scopeParts`):
 * which parts the new question replaced or dropped, which it added and which it kept from before.
 */
export function followUpNote(
  L: AnswerLanguage,
  previous: PlannedScope,
  asked: PlannedScope,
  merged: PlannedScope,
): string {
  const m = L.messages.format;
  const [before, now, own] = [previous, merged, asked].map((p) => scopeParts(L, p.filter, p.scope));
  const replaced: string[] = [];
  const added: string[] = [];
  const kept: string[] = [];
  for (const [key, phrase] of now) {
    const was = before.get(key);
    if (own.has(key) && was !== undefined && was !== phrase)
      replaced.push(m('followUp.instead', { phrase, before: was }));
    else if (own.has(key) && was === undefined) added.push(phrase);
    else kept.push(phrase);
  }
  for (const [key, phrase] of before) if (!now.has(key)) replaced.push(m('followUp.dropped', { phrase }));
  const segments: string[] = [];
  if (replaced.length) segments.push(replaced.join(', '));
  if (added.length) segments.push(m('followUp.added', { phrases: added.join(', ') }));
  if (kept.length) segments.push(m('followUp.kept', { phrases: kept.join(', ') }));
  return segments.length ? m('followUp.note', { segments: segments.join('; ') }) : m('followUp.same');
}
