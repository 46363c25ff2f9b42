/** English for the answer writer: labels, and the answers worded too freely for a template. */
import { SEVERITIES, type FindingFilter, type Severity } from '@corpus-chat/contracts';
import { md, quote } from './answer-text';
import { classNote, scopePhrase, type AnswerLanguage, type ScopedCount } from './answer-writer';

const statusLabel = (s: string) => s.replace('_', ' ');
const VERDICT_LABEL: Record<string, string> = {
  still_open: 'still open',
  fixed: 'fixed',
  inconclusive: 'inconclusive',
  none: 'no verdict',
};

/** "critical or high", "critical, high or medium" (most severe first). */
function severityList(set: readonly Severity[]): string {
  const ordered = SEVERITIES.filter((s) => set.includes(s));
  if (ordered.length <= 1) return ordered.join('');
  return `${ordered.slice(0, -1).join(', ')} or ${ordered.at(-1)}`;
}

/** What an exclusion removes, as a verb phrase ("do not match text 'X'", "are not in report R"). */
function exclusionPhrase(e: FindingFilter): string {
  if (e.text) return `do not match text ${quote(e.text)}`;
  if (e.verdict)
    return e.verdict === 'fixed'
      ? 'are not marked fixed'
      : `do not have the verdict ${VERDICT_LABEL[e.verdict]}`;
  if (e.status) return `do not have the triage status ${statusLabel(e.status)}`;
  if (e.reportName || e.reportId != null)
    return `are not in report ${e.reportName ? md(e.reportName) : `#${e.reportId}`}`;
  if (e.cwe != null) return `are not tagged CWE-${e.cwe}`;
  return 'are excluded';
}

/** The findings an exclusion subtracts, after their number ("that match it", "marked fixed"). */
function excludedPhrase(e: FindingFilter): string {
  if (e.text) return 'that match it';
  if (e.verdict)
    return e.verdict === 'fixed' ? 'marked fixed' : `with the verdict ${VERDICT_LABEL[e.verdict]}`;
  if (e.status) return `with the triage status ${statusLabel(e.status)}`;
  if (e.reportName || e.reportId != null) return 'in that report';
  if (e.cwe != null) return `tagged CWE-${e.cwe}`;
  return 'excluded';
}

/** Answer to a count of a set of severities, an exclusion ("not about X") or findings with(out) any CWE id or verdict. */
function scopedCountAnswer(c: ScopedCount, note?: string): string {
  const base = scopePhrase(ENGLISH, c.filter);
  const subject = `**${c.total}** ${c.total === 1 ? 'finding' : 'findings'}${base ? ` with ${base}${classNote(ENGLISH, c.filter)}` : ''}`;
  const lines: string[] = [];
  if (c.scope.has && c.presence) {
    const what = c.scope.has.key === 'cwe' ? 'CWE id' : 'verdict';
    const groupedBy = c.scope.has.key === 'cwe' ? 'CWE' : 'verdict';
    lines.push(
      c.scope.has.present
        ? `${subject} ${c.total === 1 ? 'has' : 'have'} at least one ${what}: ${c.presence.all} in all, minus ${c.presence.none} with none.`
        : `${subject} ${c.total === 1 ? 'has' : 'have'} no ${what}, out of ${c.presence.all}.`,
    );
    lines.push('', `Exact counts from count_findings_by, grouped by ${groupedBy}.`);
  } else {
    const rows = c.bySeverity ?? [];
    const counted = rows.map((r) => r.severity);
    const all = counted.length === SEVERITIES.length || !!c.filter.severity;
    const missing = SEVERITIES.filter((s) => !counted.includes(s));
    const sevWords = all
      ? ''
      : missing.length === 1 && counted.length > 2
        ? `are not ${missing[0]}`
        : `are ${severityList(counted)}`;
    const excl = c.scope.exclude ? exclusionPhrase(c.scope.exclude) : '';
    const predicate = [sevWords, excl].filter(Boolean).join(' and ');
    if (c.scope.exclude) {
      const sum = (k: 'count' | 'excluded') => rows.reduce((n, r) => n + r[k], 0);
      const terms = all ? '' : ` (${rows.map((r) => `${r.severity} ${r.count - r.excluded}`).join(' + ')})`;
      lines.push(
        `${subject} ${predicate}${terms}: ${sum('count')} in all, minus ${sum('excluded')} ${excludedPhrase(c.scope.exclude)}.`,
      );
      lines.push(
        '',
        'Both are exact counts from count_findings_by (grouped by severity), one without and one with the excluded part.',
      );
    } else {
      lines.push(`${subject} ${predicate}: ${rows.map((r) => `${r.severity} ${r.count}`).join(' + ')}.`);
      lines.push(
        '',
        'Each part is an exact count from count_findings_by (grouped by severity), added up; search_findings takes one severity at a time.',
      );
    }
  }
  if (note) lines[0] += ` ${note}`;
  return lines.join('\n');
}

export const ENGLISH: AnswerLanguage = {
  locale: 'en',
  num: String,
  decimal: (n) => n.toFixed(1),
  quote,
  severity: (s) => s,
  severityList,
  verdict: (v) => VERDICT_LABEL[v],
  status: statusLabel,
  reportStatus: (s) => s,
  scopedCount: scopedCountAnswer,
  /** `CWE-79` (or `CWE-79 Cross-site Scripting` when the query layer gave a name), `no CWE`. */
  cweLabel(g) {
    if (g.key === 'none') return 'no CWE';
    const id = `CWE-${md(g.key)}`;
    const label = (g.label ?? '').trim();
    if (!label || label === g.key || label.toUpperCase() === `CWE-${g.key}`) return id;
    if (label.toUpperCase().startsWith(`CWE-${g.key}`)) return md(label);
    return `${id} ${md(label)}`;
  },
};
