import { ChangeDetectionStrategy, Component, inject, signal } from '@angular/core';
import { DatePipe, DecimalPipe } from '@angular/common';
import { RouterLink } from '@angular/router';
import { SEVERITIES, TRIAGE_STATUSES } from '@corpus-chat/contracts';
import { DisplayTextPipe } from '../shared/display-text';
import { IMPORT_ACCEPT, ReportsStore } from './reports-store';

/** `/reports`: every report with its counts by severity; import by file picker or drag-and-drop. */
@Component({
  selector: 'cc-reports-page',
  imports: [DatePipe, DecimalPipe, DisplayTextPipe, RouterLink],
  providers: [ReportsStore],
  templateUrl: './reports-page.html',
  styleUrl: './reports-page.css',
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class ReportsPage {
  protected readonly store = inject(ReportsStore);
  protected readonly severities = SEVERITIES;
  protected readonly statuses = TRIAGE_STATUSES;
  protected readonly accept = IMPORT_ACCEPT;
  protected readonly dragging = signal(false);
  private dragDepth = 0;

  constructor() {
    void this.store.load();
  }

  protected importPicked(input: HTMLInputElement): void {
    const files = Array.from(input.files ?? []);
    input.value = '';
    void this.store.importFiles(files);
  }

  protected dragEnter(event: DragEvent): void {
    if (!event.dataTransfer?.types.includes('Files')) return;
    event.preventDefault();
    this.dragDepth++;
    this.dragging.set(true);
  }

  protected dragOver(event: DragEvent): void {
    if (!event.dataTransfer?.types.includes('Files')) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'copy';
  }

  protected dragLeave(): void {
    this.dragDepth = Math.max(0, this.dragDepth - 1);
    if (this.dragDepth === 0) this.dragging.set(false);
  }

  protected importDropped(event: DragEvent): void {
    event.preventDefault();
    this.dragDepth = 0;
    this.dragging.set(false);
    void this.store.importFiles(Array.from(event.dataTransfer?.files ?? []));
  }
}
