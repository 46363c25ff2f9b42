import { ChangeDetectionStrategy, Component, computed, input, signal } from '@angular/core';
import { DecimalPipe } from '@angular/common';
import { RouterLink } from '@angular/router';
import {
  type CountFindingsByArgs,
  type FindingFilter,
  type GroupByKey,
  type ListAllReportsArgs,
  type SearchFindingsArgs,
  type ToolName,
} from '@corpus-chat/contracts';
import { CountChart, type CountGroup } from '../charts/count-chart';
import { findingFilterToQueryParams, groupFindingFilter } from '../reports/finding-filter-params';
import { DisplayTextPipe } from '../shared/display-text';
import { labelOf, severityLabel } from '../i18n/labels';
import type { ToolCallView } from './turn-state';

/** A tool's name in words; an unknown name (an older or newer worker) says so. */
function toolLabel(name: string): string {
  return labelOf(name, $localize`:@@tool.unknown:Unknown tool “${name}:name:”`, {
    get_corpus_overview: $localize`:@@tool.overview:Corpus overview`,
    search_findings: $localize`:@@tool.search:Search findings`,
    count_findings_by: $localize`:@@tool.count:Count findings`,
    list_all_reports: $localize`:@@tool.listReports:List reports`,
    finding_detail: $localize`:@@tool.findingDetail:Finding detail`,
    compare_reports: $localize`:@@tool.compare:Compare scans`,
  } satisfies Record<ToolName, string>);
}

/** Groups listed on a card at most (the worker sends a bounded list too). */
const CARD_GROUPS = 12;

let nextCardId = 0;

/**
 * One tool call: name and state, expanding to its arguments and summary. Every number links to
 * where it can be checked (the Findings view with the same filter, or the finding); breakdowns
 * always show their bar chart.
 */
@Component({
  selector: 'cc-tool-card',
  imports: [CountChart, DecimalPipe, DisplayTextPipe, RouterLink],
  templateUrl: './tool-card.html',
  styleUrl: './tool-card.css',
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class ToolCard {
  readonly call = input.required<ToolCallView>();

  protected readonly severityLabel = severityLabel;
  protected readonly detailsId = `tool-card-${++nextCardId}`;
  protected readonly expanded = signal(false);
  protected readonly label = computed(() => {
    return toolLabel(this.call().name);
  });
  protected readonly argsJson = computed(() => JSON.stringify(this.call().args ?? {}, null, 2));
  protected readonly stateLabel = computed(() =>
    labelOf(this.call().state, $localize`:@@tool.stateFailed:failed`, {
      running: $localize`:@@tool.stateRunning:running`,
      ok: $localize`:@@tool.stateDone:done`,
    }),
  );

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

  /** The breakdown (what it is grouped by, and its groups each with its Findings link, null for a group no filter can select). */
  protected readonly breakdown = computed((): { groupBy: GroupByKey; groups: CountGroup[] } | null => {
    const { data, state } = this.call();
    if (state !== 'ok' || !data?.groups?.length || !data.groupBy) return null;
    const filter = this.filter();
    const groupBy = data.groupBy;
    const groups = data.groups.slice(0, CARD_GROUPS).map((g) => {
      const groupFilter = filter ? groupFindingFilter(filter, groupBy, g.key) : null;
      return { ...g, params: groupFilter ? findingFilterToQueryParams(groupFilter) : null };
    });
    return { groupBy, groups };
  });

  /** The finding a finished `finding_detail` found, else null. */
  protected readonly findingId = computed(() => {
    const { name, data, state } = this.call();
    return name === 'finding_detail' && state === 'ok' && data?.findingId && data.rows?.length
      ? data.findingId
      : null;
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
