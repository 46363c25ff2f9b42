import {
  ChangeDetectionStrategy,
  Component,
  computed,
  effect,
  inject,
  input,
  signal,
  untracked,
} from '@angular/core';
import { DecimalPipe } from '@angular/common';
import { NonNullableFormBuilder, ReactiveFormsModule, Validators } from '@angular/forms';
import { RouterLink } from '@angular/router';
import { SEVERITIES, type ManualFindingDto, type Severity } from '@corpus-chat/contracts';
import { DisplayTextPipe } from '../shared/display-text';
import { parseCweInput } from './finding-filter-params';
import { ReportDetails } from './report-details';
import { ReportReviewStore } from './report-review-store';
import { reportStatusLabel, severityLabel } from '../i18n/labels';

/** `79, CWE-89` → `[79, 89]`; null when a part is not a CWE number. */
export function parseCweList(text: string): number[] | null {
  const parts = text
    .split(/[,;]/)
    .map((p) => p.trim())
    .filter(Boolean);
  const ids = parts.map((p) => parseCweInput(p));
  return ids.every((id): id is number => typeof id === 'number') ? [...new Set(ids)] : null;
}

/**
 * `/reports/:reportId`: a report's facts; for a PDF its text, and while it needs review a form for
 * findings read by hand and a button to mark it reviewed.
 */
@Component({
  selector: 'cc-report-review-page',
  imports: [DecimalPipe, DisplayTextPipe, ReactiveFormsModule, ReportDetails, RouterLink],
  providers: [ReportReviewStore],
  templateUrl: './report-review-page.html',
  styleUrl: './report-review-page.css',
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class ReportReviewPage {
  protected readonly store = inject(ReportReviewStore);
  private readonly fb = inject(NonNullableFormBuilder);

  /** Route parameter. */
  readonly reportId = input.required<string>();

  protected readonly severities = SEVERITIES;
  protected readonly severityLabel = severityLabel;
  protected readonly pages = computed(() => this.store.text().split('\f'));
  protected readonly statusLabel = computed(() => {
    const r = this.store.report();
    return r ? reportStatusLabel(r.status) : '';
  });
  protected readonly form = this.fb.group({
    title: ['', [Validators.required, Validators.maxLength(1000)]],
    severity: this.fb.control<Severity>('medium'),
    cwe: [''],
    location: ['', Validators.maxLength(2000)],
    description: ['', Validators.maxLength(20000)],
  });
  protected readonly formError = signal<string | null>(null);

  constructor() {
    effect(() => {
      const id = Number(this.reportId());
      untracked(() => void this.store.load(id));
    });
  }

  protected async addFinding(): Promise<void> {
    const v = this.form.getRawValue();
    const cwe = parseCweList(v.cwe);
    if (!v.title.trim()) {
      this.formError.set($localize`:@@reports.review.titleRequired:Give the finding a title.`);
      return;
    }
    if (cwe === null) {
      this.formError.set(
        $localize`:@@reports.review.badCwe:CWE ids are numbers such as 79 or CWE-79, separated by commas.`,
      );
      return;
    }
    this.formError.set(null);
    const finding: ManualFindingDto = {
      title: v.title.trim(),
      severity: v.severity,
      ...(cwe.length ? { cwe } : {}),
      ...(v.description.trim() ? { description: v.description.trim() } : {}),
      ...(v.location.trim() ? { location: v.location.trim() } : {}),
    };
    if (await this.store.addFinding(finding))
      this.form.reset({ title: '', severity: v.severity, cwe: '', location: '', description: '' });
  }

  protected markReviewed(): void {
    void this.store.markReviewed();
  }
}
