import { ChangeDetectionStrategy, Component, ElementRef, input, output, viewChild } from '@angular/core';

let nextDialogId = 0;

/**
 * A modal confirmation on the native `<dialog>` (focus trapped by the browser, Escape cancels).
 * Call `open()`; `confirmed` fires when the operator accepts.
 */
@Component({
  selector: 'cc-confirm-dialog',
  template: `
    <dialog
      #dialog
      class="modal"
      [attr.aria-labelledby]="titleId"
      [attr.aria-describedby]="bodyId"
      (close)="closed()"
    >
      <h2 [id]="titleId">{{ heading() }}</h2>
      <p [id]="bodyId">{{ message() }}</p>
      <div class="actions">
        <button type="button" (click)="dialog.close()" autofocus i18n="@@common.cancel">Cancel</button>
        <button type="button" class="danger solid" (click)="accept()">{{ confirmLabel() }}</button>
      </div>
    </dialog>
  `,
  styles: `
    dialog {
      width: min(26rem, calc(100vw - 2rem));
    }
    h2 {
      margin: 0 0 0.5rem;
      font-size: 1.1rem;
    }
    p {
      margin: 0 0 1.2rem;
      color: var(--muted);
      overflow-wrap: anywhere;
    }
  `,
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class ConfirmDialog {
  readonly heading = input.required<string>();
  readonly message = input.required<string>();
  readonly confirmLabel = input($localize`:@@common.delete:Delete`);
  readonly confirmed = output<void>();

  protected readonly titleId = `confirm-title-${++nextDialogId}`;
  protected readonly bodyId = `confirm-body-${nextDialogId}`;
  private readonly dialog = viewChild.required<ElementRef<HTMLDialogElement>>('dialog');
  private accepted = false;

  open(): void {
    this.accepted = false;
    this.dialog().nativeElement.showModal();
  }

  protected accept(): void {
    this.accepted = true;
    this.dialog().nativeElement.close();
  }

  protected closed(): void {
    if (this.accepted) this.confirmed.emit();
  }
}
