import { ChangeDetectionStrategy, Component, computed, input, signal } from '@angular/core';
import { RouterLink, type Params } from '@angular/router';
import type { CountFindingsByArgs, FindingFilter, ListAllReportsArgs, SearchFindingsArgs, ToolName } from '@corpus-chat/contracts';
import { findingFilterToQueryParams, groupFindingFilter } from '../reports/finding-filter-params';
import { DisplayTextPipe } from '../shared/display-text';
import type { ToolCallView } from './turn-state';

const TOOL_LABELS: Record<ToolName, string> = {
  get_corpus_overview: 'Corpus overview',
  search_findings: 'Search findings',
  count_findings_by: 'Count findings',
  list_all_reports: 'List reports',
  finding_detail: 'Finding detail',
  compare_reports: 'Compare scans',
};

/** Groups listed on a card at most (the worker sends a bounded list too). */
const CARD_GROUPS = 12;

/** One group of a breakdown as the card lists it; `params` opens that group in the Findings view. */
export interface CardGroup {
  key: string;
  label: string;
  count: number;
  params: Params | null;
}

let nextCardId = 0;

/**
 * One tool call of a turn: name, a spinner while it runs, a check or a cross when done; expands
 * to show the arguments and the one-line summary. Every number links to where it can be checked:
 * a `search_findings` card shows "N of TOTAL" and opens the Findings view with the same filter; a
 * `count_findings_by` card (and the overview's and report list's breakdowns) opens the Findings
 * view with its filter, each group with its filter plus that group; `finding_detail` opens the
 * finding.
 */
@Component({
  selector: 'cc-tool-card',
  imports: [DisplayTextPipe, RouterLink],
  templateUrl: './tool-card.html',
  styleUrl: './tool-card.css',
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class ToolCard {
  readonly call = input.required<ToolCallView>();

  protected readonly detailsId = `tool-card-${++nextCardId}`;
  protected readonly expanded = signal(false);
  protected readonly label = computed(() => {
    const name = this.call().name;
    return Object.hasOwn(TOOL_LABELS, name) ? TOOL_LABELS[name as ToolName] : `Unknown tool “${name}”`;
  });
  protected readonly argsJson = computed(() => JSON.stringify(this.call().args ?? {}, null, 2));
  protected readonly stateLabel = computed(() => ({ running: 'running', ok: 'done', failed: 'failed' })[this.call().state]);

  /** "N of TOTAL" for a finished search, else null. */
  protected readonly count = computed(() => {
    const { name, data, state } = this.call();
    if (name !== 'search_findings' || state !== 'ok' || data?.total === undefined) return null;
    return { shown: data.returned ?? data.rows?.length ?? 0, total: data.total };
  });

  /** Findings counted by a finished `count_findings_by`, else null. */
  protected readonly countTotal = computed(() => {
    const { name, data, state } = this.call();
    return name === 'count_findings_by' && state === 'ok' && data?.total !== undefined ? data.total : null;
  });

  /** The filter the tool applied (echoed in its result, else read from its arguments); null for tools without one. */
  private readonly filter = computed((): FindingFilter | null => {
    const { name, data, args } = this.call();
    switch (name) {
      case 'search_findings':
        return data?.filter ?? this.filterFromArgs(args);
      case 'count_findings_by':
        return data?.filter ?? this.filterFromArgs((args as Partial<CountFindingsByArgs> | null)?.filter);
      case 'get_corpus_overview':
        return {};
      case 'list_all_reports':
        // Archived reports' findings are not in the Findings view: no links for a list that has them.
        return (args as Partial<ListAllReportsArgs> | null)?.includeArchived ? null : {};
      default:
        return null;
    }
  });

  /** Query parameters of the Findings view for the whole result ("Open in Findings"), when finished. */
  protected readonly findingsLink = computed(() => {
    const { name, state } = this.call();
    const filter = this.filter();
    if (state !== 'ok' || !filter || name === 'list_all_reports') return null;
    return findingFilterToQueryParams(filter);
  });

  /** The breakdown's groups, each with its Findings link (null for a group no filter can select). */
  protected readonly groups = computed((): CardGroup[] | null => {
    const { data, state } = this.call();
    if (state !== 'ok' || !data?.groups || !data.groupBy) return null;
    const filter = this.filter();
    const groupBy = data.groupBy;
    return data.groups.slice(0, CARD_GROUPS).map((g) => {
      const groupFilter = filter ? groupFindingFilter(filter, groupBy, g.key) : null;
      return { ...g, params: groupFilter ? findingFilterToQueryParams(groupFilter) : null };
    });
  });

  /** The finding a finished `finding_detail` found, else null. */
  protected readonly findingId = computed(() => {
    const { name, data, state } = this.call();
    return name === 'finding_detail' && state === 'ok' && data?.findingId && data.rows?.length ? data.findingId : null;
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
