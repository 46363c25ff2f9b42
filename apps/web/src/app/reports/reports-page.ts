import {
  ChangeDetectionStrategy,
  Component,
  LOCALE_ID,
  computed,
  inject,
  signal,
  viewChild,
} from '@angular/core';
import { DatePipe, DecimalPipe } from '@angular/common';
import { RouterLink } from '@angular/router';
import { SEVERITIES, TRIAGE_STATUSES, type ReportSummary } from '@corpus-chat/contracts';
import { ConfirmDialog } from '../chat/confirm-dialog';
import { importFormatsLabel, reportStatusLabel, severityLabel, triageStatusLabel } from '../i18n/labels';
import { DisplayTextPipe, displayText } from '../shared/display-text';
import { FileDrop } from '../shared/file-drop';
import { IMPORT_ACCEPT, ReportsStore, type ReportSortKey } from './reports-store';
import { ariaSort, sortArrow } from './finding-sort';
import { ScanComparisonPanel } from './scan-comparison-panel';
import { ScanComparisonStore } from './scan-comparison-store';

const COLUMNS: readonly { key: ReportSortKey; label: string }[] = [
  { key: 'filename', label: $localize`:@@reports.colReport:Report` },
  { key: 'format', label: $localize`:@@reports.colFormat:Format` },
  { key: 'status', label: $localize`:@@reports.colStatus:Status` },
  { key: 'findingCount', label: $localize`:@@nav.findings:Findings` },
  { key: 'createdAt', label: $localize`:@@reports.colImported:Imported` },
];

/** `/reports`: reports with severity counts, searchable and sortable; import, archive, compare scans. */
@Component({
  selector: 'cc-reports-page',
  imports: [ConfirmDialog, DatePipe, DecimalPipe, DisplayTextPipe, FileDrop, RouterLink, ScanComparisonPanel],
  providers: [ReportsStore, ScanComparisonStore],
  templateUrl: './reports-page.html',
  styleUrl: './reports-page.css',
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class ReportsPage {
  protected readonly store = inject(ReportsStore);
  protected readonly comparison = inject(ScanComparisonStore);
  protected readonly severities = SEVERITIES;
  protected readonly statuses = TRIAGE_STATUSES;
  protected readonly accept = IMPORT_ACCEPT;
  protected readonly formats = importFormatsLabel(inject(LOCALE_ID));
  protected readonly columns = COLUMNS;
  protected readonly severityLabel = severityLabel;
  protected readonly statusLabel = triageStatusLabel;
  protected readonly reportStatusLabel = reportStatusLabel;
  protected readonly ariaSort = ariaSort;
  protected readonly sortArrow = sortArrow;
  /** The report the archive confirmation is about. */
  protected readonly toArchive = signal<Pick<ReportSummary, 'id' | 'filename'> | null>(null);
  private readonly confirmArchive = viewChild.required<ConfirmDialog>('confirmArchive');
  protected readonly archiveHeading = computed(() => {
    const name = displayText(this.toArchive()?.filename);
    return name
      ? $localize`:@@reports.archiveHeading:Archive ${name}:name:?`
      : $localize`:@@reports.archiveThis:Archive this report?`;
  });

  constructor() {
    void this.store.load();
  }

  protected openLabel(r: ReportSummary): string {
    return r.status === 'needs_review'
      ? $localize`:@@reports.table.reviewLabel:Review ${r.filename}:filename:`
      : $localize`:@@reports.table.openLabel:Open ${r.filename}:filename:`;
  }

  protected reportNumber(id: number): string {
    return $localize`:@@reports.reportNumber:report ${id}:id:`;
  }

  protected compareLabel(filename: string): string {
    return $localize`:@@reports.compareLabel:Compare ${displayText(filename)}:name: with an earlier scan`;
  }

  protected archiveLabel(r: ReportSummary): string {
    const name = displayText(r.filename);
    return r.archived
      ? $localize`:@@reports.unarchiveNamed:Unarchive ${name}:name:`
      : $localize`:@@reports.archiveNamed:Archive ${name}:name:`;
  }

  /** Archiving takes a report's findings out of every answer: asked first. */
  protected askToArchive(report: Pick<ReportSummary, 'id' | 'filename'>): void {
    this.toArchive.set(report);
    this.confirmArchive().open();
  }

  protected archiveConfirmed(): void {
    const report = this.toArchive();
    if (report) void this.store.setArchived(report, true);
  }

  protected importPicked(input: HTMLInputElement): void {
    const files = Array.from(input.files ?? []);
    input.value = '';
    void this.store.importFiles(files);
  }

  protected importDropped(files: File[]): void {
    void this.store.importFiles(files);
  }
}
