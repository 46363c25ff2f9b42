/** English number formats and labels for the answer writer (the sentences are in `answer-messages.json`). */
import { SEVERITIES, type Severity } from '@corpus-chat/contracts';
import { md, quote } from './answer-text';
import type { AnswerLanguage } from './answer-writer';

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
