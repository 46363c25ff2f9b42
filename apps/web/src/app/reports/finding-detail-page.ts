import { ChangeDetectionStrategy, Component, computed, effect, inject, input, signal, untracked } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { DatePipe, Location } from '@angular/common';
import { ActivatedRoute, RouterLink, type Params } from '@angular/router';
import type { FindingDetail } from '@corpus-chat/contracts';
import { describeHttpError, httpStatus } from '../http/api-error';
import { MarkdownView } from '../markdown/markdown';
import { DisplayTextPipe } from '../shared/display-text';
import { findingFilterFromQueryParams, findingFilterToQueryParams } from './finding-filter-params';
import { ReportsApi } from './reports-api';

/**
 * `/reports/findings/:findingId`: current version, version count, notes and the latest verdict.
 * Descriptions, impact, steps, notes and rationales are Markdown as scanners write them (SARIF
 * messages use it: code in backticks, fenced request samples), shown through the same sanitising
 * renderer as the chat: HTML in a finding stays text. Opened from the Findings view, the URL carries
 * that view's filter and page, and the breadcrumb goes back to them.
 */
@Component({
  selector: 'cc-finding-detail-page',
  imports: [DatePipe, DisplayTextPipe, MarkdownView, RouterLink],
  templateUrl: './finding-detail-page.html',
  styleUrl: './finding-detail-page.css',
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class FindingDetailPage {
  private readonly api = inject(ReportsApi);
  private readonly location = inject(Location);

  /** Route parameter. */
  readonly findingId = input.required<string>();

  private readonly queryParams = toSignal(inject(ActivatedRoute).queryParams, { initialValue: {} as Params });
  /** The Findings view's filter and page this finding was opened from (only the keys that view reads). */
  protected readonly listParams = computed((): Params => {
    const q = this.queryParams();
    const page = Number(q['page']);
    return { ...findingFilterToQueryParams(findingFilterFromQueryParams(q)), ...(Number.isInteger(page) && page > 1 ? { page: String(page) } : {}) };
  });

  protected readonly finding = signal<FindingDetail | null>(null);
  protected readonly loading = signal(true);
  protected readonly error = signal<string | null>(null);

  constructor() {
    effect(() => {
      const id = Number(this.findingId());
      untracked(() => void this.load(id));
    });
  }

  protected back(): void {
    this.location.back();
  }

  private async load(id: number): Promise<void> {
    this.loading.set(true);
    this.error.set(null);
    this.finding.set(null);
    if (!Number.isInteger(id) || id < 1) {
      this.loading.set(false);
      this.error.set('This is not a finding id.');
      return;
    }
    try {
      this.finding.set(await this.api.findingDetail(id));
    } catch (err) {
      this.error.set(httpStatus(err) === 404 ? `Finding #${id} does not exist.` : describeHttpError(err));
    } finally {
      this.loading.set(false);
    }
  }
}
