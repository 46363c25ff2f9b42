import {
  ChangeDetectionStrategy,
  Component,
  ElementRef,
  afterRenderEffect,
  computed,
  inject,
  input,
  viewChild,
} from '@angular/core';
import { DecimalPipe } from '@angular/common';
import { RouterLink, type Params } from '@angular/router';
import type { GroupByKey } from '@corpus-chat/contracts';
import { labelOf, severityLabel, triageStatusLabel, verdictLabel } from '../i18n/labels';
import { displayText } from '../shared/display-text';
import { ThemeStore } from '../theme/theme-store';
import type { Bar } from './bar-chart';

/** One group of a breakdown: `params` opens that group in the Findings view (null: no filter selects it). */
export interface CountGroup {
  key: string;
  label: string;
  count: number;
  params: Params | null;
}

function groupHeading(key: GroupByKey): string {
  return labelOf(key, $localize`:@@chart.byGroup:Group`, {
    severity: $localize`:@@chart.bySeverity:Severity`,
    report: $localize`:@@chart.byReport:Report`,
    cwe: $localize`:@@chart.byCwe:CWE`,
    verdict: $localize`:@@chart.byVerdict:Verdict`,
    status: $localize`:@@chart.byStatus:Triage status`,
    format: $localize`:@@chart.byFormat:Format`,
    title: $localize`:@@chart.byTitle:Title`,
  });
}

/** Height of one bar's row in the chart, in CSS pixels. */
const ROW_PX = 26;

/**
 * A findings breakdown as a bar chart beside a table of the same numbers: the table is the text
 * alternative with the links, the canvas label lists every count (WCAG 1.1.1, 1.4.1).
 */
@Component({
  selector: 'cc-count-chart',
  imports: [DecimalPipe, RouterLink],
  templateUrl: './count-chart.html',
  styleUrl: './count-chart.css',
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class CountChart {
  readonly groups = input.required<readonly CountGroup[]>();
  readonly groupBy = input.required<GroupByKey>();

  private readonly theme = inject(ThemeStore);
  private readonly canvas = viewChild.required<ElementRef<HTMLCanvasElement>>('canvas');

  protected readonly heading = computed(() => groupHeading(this.groupBy()));
  protected readonly plotHeight = computed(() => this.groups().length * ROW_PX + 34);
  /** The chart's text alternative: "Bar chart of findings by severity: critical 3, medium 120." */
  protected readonly description = computed(() => {
    const heading = this.heading().toLowerCase();
    const groups = this.groups()
      .map((g) => `${this.groupLabel(g)} ${g.count}`)
      .join(', ');
    return $localize`:@@chart.description:Bar chart of findings by ${heading}:heading:: ${groups}:groups:.`;
  });

  /** A group's name: severities, statuses and verdicts in the interface's language, the rest as stored. */
  protected groupLabel(g: CountGroup): string {
    switch (this.groupBy()) {
      case 'severity':
        return severityLabel(g.key);
      case 'status':
        return triageStatusLabel(g.key);
      case 'verdict':
        return verdictLabel(g.key);
      default:
        return displayText(g.label);
    }
  }

  constructor() {
    afterRenderEffect((onCleanup) => {
      const canvas = this.canvas().nativeElement;
      const groups = this.groups();
      const groupBy = this.groupBy();
      this.theme.scheme(); // redraw in the other theme's colours
      let chart: { destroy(): void } | undefined;
      let stale = false;
      onCleanup(() => {
        stale = true;
        chart?.destroy();
      });
      const style = getComputedStyle(canvas);
      const token = (name: string): string => style.getPropertyValue(name).trim() || 'gray';
      const bars: Bar[] = groups.map((g) => ({
        label: displayText(g.label),
        count: g.count,
        colour: token(groupBy === 'severity' ? `--sev-${g.key}` : '--accent'),
      }));
      void import('./bar-chart').then(({ drawBarChart }) => {
        if (!stale) chart = drawBarChart(canvas, bars, { text: token('--muted'), grid: token('--border') });
      });
    });
  }
}
