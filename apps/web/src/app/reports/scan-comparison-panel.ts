import { ChangeDetectionStrategy, Component, inject } from '@angular/core';
import { DatePipe } from '@angular/common';
import { RouterLink } from '@angular/router';
import { DisplayTextPipe } from '../shared/display-text';
import { ScanComparisonStore } from './scan-comparison-store';

/** The comparison of a report with an earlier scan of the same target: counts, new and fixed findings. */
@Component({
  selector: 'cc-scan-comparison-panel',
  imports: [DatePipe, DisplayTextPipe, RouterLink],
  templateUrl: './scan-comparison-panel.html',
  styleUrl: './scan-comparison-panel.css',
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class ScanComparisonPanel {
  protected readonly store = inject(ScanComparisonStore);

  protected chooseBaseline(select: HTMLSelectElement): void {
    void this.store.chooseBaseline(Number(select.value));
  }
}
