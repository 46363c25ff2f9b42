import { SEVERITIES, type FindingFilter } from '@corpus-chat/contracts';
import { md, type AnswerLanguage } from './answer-languages';
import { classNote, scopePhrase } from './answer-writer';
import type { ScopedCount } from './computed-counts';

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
  if (has && c.presence) {
    const words = { subject, total: c.total, key: has.key, ...c.presence };
    return [
      m(has.present ? 'scoped.hasSome' : 'scoped.hasNone', words),
      '',
      m('scoped.hasSource', words),
    ].join('\n');
  }
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
  const terms = (n: (r: (typeof rows)[number]) => number) =>
    L.tally(
      rows.map((r) => [L.severity(r.severity), n(r)]),
      ' + ',
    );
  if (!e)
    return [
      m('scoped.sum', { subject, predicate, terms: terms((r) => r.count) }),
      '',
      m('scoped.sumSource'),
    ].join('\n');
  const sum = (k: 'count' | 'excluded') => rows.reduce((n, r) => n + r[k], 0);
  const minus = m('scoped.minus', {
    subject,
    predicate,
    terms: all ? '' : ` (${terms((r) => r.count - r.excluded)})`,
    count: sum('count'),
    excluded: sum('excluded'),
    excludedWhat: m(`excluded.${kind}`, words),
  });
  return [minus, '', m('scoped.minusSource')].join('\n');
}
