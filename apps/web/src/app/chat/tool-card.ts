import { ChangeDetectionStrategy, Component, computed, input, signal } from '@angular/core';
import { RouterLink } from '@angular/router';
import type { FindingFilter, SearchFindingsArgs, ToolName } from '@corpus-chat/contracts';
import { findingFilterToQueryParams } from '../reports/finding-filter-params';
import type { ToolCallView } from './turn-state';

const TOOL_LABELS: Record<ToolName, string> = {
  get_corpus_overview: 'Corpus overview',
  search_findings: 'Search findings',
  count_findings_by: 'Count findings',
  list_all_reports: 'List reports',
  finding_detail: 'Finding detail',
};

let nextCardId = 0;

/**
 * One tool call of a turn: name, a spinner while it runs, a check or a cross when done; expands
 * to show the arguments and the one-line summary. A `search_findings` card shows "N of TOTAL" and
 * links to the Findings view with the same filter, so the number can be checked.
 */
@Component({
  selector: 'cc-tool-card',
  imports: [RouterLink],
  templateUrl: './tool-card.html',
  styleUrl: './tool-card.css',
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class ToolCard {
  readonly call = input.required<ToolCallView>();

  protected readonly detailsId = `tool-card-${++nextCardId}`;
  protected readonly expanded = signal(false);
  protected readonly label = computed(() => TOOL_LABELS[this.call().name] ?? this.call().name);
  protected readonly argsJson = computed(() => JSON.stringify(this.call().args ?? {}, null, 2));
  protected readonly stateLabel = computed(() => ({ running: 'running', ok: 'done', failed: 'failed' })[this.call().state]);

  /** "N of TOTAL" for a finished search, else null. */
  protected readonly count = computed(() => {
    const { name, data, state } = this.call();
    if (name !== 'search_findings' || state !== 'ok' || data?.total === undefined) return null;
    return { shown: data.returned ?? data.rows?.length ?? 0, total: data.total };
  });

  /** Total of a finished `count_findings_by`, with its groups. */
  protected readonly groups = computed(() => {
    const { name, data, state } = this.call();
    return name === 'count_findings_by' && state === 'ok' && data?.groups ? data.groups.slice(0, 12) : null;
  });

  /** Query parameters of the Findings view for this search's filter. */
  protected readonly findingsLink = computed(() => {
    const { name, data, args } = this.call();
    if (name !== 'search_findings') return null;
    const filter: FindingFilter = data?.filter ?? this.filterFromArgs(args);
    return findingFilterToQueryParams(filter);
  });

  protected toggle(): void {
    this.expanded.update((v) => !v);
  }

  private filterFromArgs(args: unknown): FindingFilter {
    if (!args || typeof args !== 'object') return {};
    const { text, severity, reportId, reportName, cwe, verdict } = args as SearchFindingsArgs;
    return { text, severity, reportId, reportName, cwe, verdict };
  }
}
