import { Directive, output, signal } from '@angular/core';

/** `<form ccFileDrop (filesDropped)="…">`: takes dropped files (class `dragging` meanwhile) only. */
@Directive({
  selector: '[ccFileDrop]',
  host: {
    '[class.dragging]': 'dragging()',
    '(dragenter)': 'dragEnter($event)',
    '(dragover)': 'dragOver($event)',
    '(dragleave)': 'dragLeave()',
    '(drop)': 'drop($event)',
  },
})
export class FileDrop {
  readonly filesDropped = output<File[]>();

  protected readonly dragging = signal(false);
  // dragenter and dragleave fire for every child the pointer crosses: counted, so the highlight
  // stays until the pointer leaves the host itself.
  private depth = 0;

  protected dragEnter(event: DragEvent): void {
    if (!event.dataTransfer?.types.includes('Files')) return;
    event.preventDefault();
    this.depth++;
    this.dragging.set(true);
  }

  protected dragOver(event: DragEvent): void {
    if (!event.dataTransfer?.types.includes('Files')) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'copy';
  }

  protected dragLeave(): void {
    this.depth = Math.max(0, this.depth - 1);
    if (this.depth === 0) this.dragging.set(false);
  }

  protected drop(event: DragEvent): void {
    this.depth = 0;
    this.dragging.set(false);
    const files = Array.from(event.dataTransfer?.files ?? []);
    if (!files.length) return;
    event.preventDefault();
    this.filesDropped.emit(files);
  }
}
