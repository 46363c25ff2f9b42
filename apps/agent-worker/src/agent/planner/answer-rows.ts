/**
 * Parts of the answers in the turn's language: the rows of grouped answers, the computed counts
 * and the note a follow-up's answer carries.
 */
import {
  SEVERITIES,
  VERDICT_STATUSES,
  type ComputedScope,
  type CountFindingsByResult,
  type CountGroup,
  type FindingFilter,
} from '@corpus-chat/contracts';
import { md, type AnswerLanguage } from './answer-languages';
import { classNote, scopeParts, scopePhrase } from './answer-writer';
import type { ScopedCount } from './computed-counts';
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

/**
 * What an exclusion removes, as the words of its message ("do not match text 'X'", "are not in report R").
 */
function exclusion(L: AnswerLanguage, e: FindingFilter): [string, Record<string, string>] {
  if (e.text) return ['text', { q: L.quote(e.text) }];
  if (e.verdict) return e.verdict === 'fixed' ? ['fixed', {}] : ['verdict', { v: L.verdict(e.verdict) }];
  if (e.status) return ['status', { s: L.status(e.status) }];
  if (e.reportName || e.reportId != null)
    return ['report', { name: e.reportName ? md(e.reportName) : `#${e.reportId}` }];
  if (e.cwe != null) return ['cwe', { cwe: `${e.cwe}` }];
  return ['other', {}];
}

/**
 * Answer to a count of a set of severities, an exclusion ("not about X") or findings with(out) any CWE id
 * or verdict.
 */
export function scopedCountAnswer(L: AnswerLanguage, c: ScopedCount): string {
  const m = L.messages.format;
  const note = classNote(L, c.filter);
  const subject = m('scoped.subject', { total: c.total, scope: scopePhrase(L, c.filter), note });
  const has = c.scope.has;
  if (has && c.presence) return m('scoped.has', { subject, total: c.total, ...has, ...c.presence });
  const rows = c.bySeverity ?? [];
  const counted = rows.map((r) => r.severity);
  const all = counted.length === SEVERITIES.length || !!c.filter.severity;
  const missing = SEVERITIES.filter((s) => !counted.includes(s));
  const list = L.severityList(counted);
  const sevWords = all
    ? ''
    : missing.length === 1 && counted.length > 2
      ? m('scoped.notSeverity', { missing: L.severity(missing[0]), list })
      : m('scoped.severities', { list });
  const e = c.scope.exclude;
  const [kind, words] = e ? exclusion(L, e) : ['other', {}];
  const excl = e && m('scoped.exclusion', { excl: m(`excl.${kind}`, words) });
  const predicate = [sevWords, excl].filter(Boolean).join(m('scoped.and'));
  // Without an exclusion nothing is excluded: each term is the severity's count.
  const terms = L.tally(
    rows.map((r) => [L.severity(r.severity), r.count - r.excluded]),
    ' + ',
  );
  if (!e) return m('scoped.sum', { subject, predicate, terms });
  const sum = (k: 'count' | 'excluded') => rows.reduce((n, r) => n + r[k], 0);
  return m('scoped.minus', {
    subject,
    predicate,
    terms: all ? '' : ` (${terms})`,
    count: sum('count'),
    excluded: sum('excluded'),
    excludedWhat: m(`excluded.${kind}`, words),
  });
}
