import { ChangeDetectionStrategy, Component, inject } from '@angular/core';
import { DatePipe, DecimalPipe } from '@angular/common';
import { severityLabel } from '../i18n/labels';
import { RouterLink } from '@angular/router';
import { DisplayTextPipe } from '../shared/display-text';
import { ScanComparisonStore } from './scan-comparison-store';

/** The comparison of a report with an earlier scan of the same target: counts, new and fixed findings. */
@Component({
  selector: 'cc-scan-comparison-panel',
  imports: [DatePipe, DecimalPipe, DisplayTextPipe, RouterLink],
  templateUrl: './scan-comparison-panel.html',
  styleUrl: './scan-comparison-panel.css',
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class ScanComparisonPanel {
  protected readonly store = inject(ScanComparisonStore);
  protected readonly severityLabel = severityLabel;
  protected readonly newHeading = $localize`:@@compare.newHeading:New`;
  protected readonly fixedHeading = $localize`:@@compare.fixedHeading:Fixed (absent from the newer scan)`;

  protected chooseBaseline(select: HTMLSelectElement): void {
    void this.store.chooseBaseline(Number(select.value));
  }
}
