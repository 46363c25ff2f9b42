import type { SearchFindingsResult } from '@corpus-chat/contracts';
import { scopePhrase } from './answer-writer';

/**
 * Answer to "what percentage of … are …": the part's count and the whole's, both exact totals
 * from search_findings, and the percentage they give (one decimal), with both filters in words.
 */
export function shareAnswer(part: SearchFindingsResult, whole: SearchFindingsResult): string {
  const wholeScope = scopePhrase(whole.filter);
  const partScope = scopePhrase(part.filter);
  const pct = whole.total
    ? `${((100 * part.total) / whole.total).toFixed(1)}%`
    : 'no share: the whole is empty';
  const of = wholeScope
    ? `the **${whole.total}** findings matching ${wholeScope}`
    : `all **${whole.total}** findings`;
  return `**${part.total}** of ${of} match ${partScope} (${pct}). Exact totals from search_findings, one call each.`;
}
