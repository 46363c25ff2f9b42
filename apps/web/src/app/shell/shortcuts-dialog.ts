import { ChangeDetectionStrategy, Component, ElementRef, viewChild } from '@angular/core';

/** Whether a key press belongs to something the operator types into (then `?` is just a character). */
export function isTypingTarget(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}

/**
 * The keyboard shortcuts, in a modal on the native `<dialog>` (focus kept inside by the browser,
 * Escape closes, focus returns to where it was). The shell opens it on `?`.
 */
@Component({
  selector: 'cc-shortcuts-dialog',
  template: `
    <dialog #dialog class="modal" aria-labelledby="shortcuts-title" data-testid="shortcuts-dialog">
      <h2 id="shortcuts-title" i18n="@@shortcuts.title">Keyboard shortcuts</h2>
      <dl>
        <dt><kbd>?</kbd></dt>
        <dd i18n="@@shortcuts.help">Show this list (outside a text field)</dd>
        <dt><kbd>Tab</kbd> / <kbd>Shift</kbd>+<kbd>Tab</kbd></dt>
        <dd i18n="@@shortcuts.tab">
          Move to the next or previous control; the first Tab offers “Skip to content”
        </dd>
        <dt><kbd>Enter</kbd></dt>
        <dd i18n="@@shortcuts.send">Send the message (in the message box)</dd>
        <dt><kbd>Shift</kbd>+<kbd>Enter</kbd></dt>
        <dd i18n="@@shortcuts.newline">New line in the message box</dd>
        <dt><kbd>Esc</kbd></dt>
        <dd i18n="@@shortcuts.escape">Close a dialog, or cancel renaming a thread</dd>
      </dl>
      <div class="actions">
        <button type="button" (click)="dialog.close()" autofocus i18n="@@shortcuts.close">Close</button>
      </div>
    </dialog>
  `,
  styles: `
    dialog {
      width: min(30rem, calc(100vw - 2rem));
      background: var(--surface);
    }
    h2 {
      margin: 0 0 0.8rem;
      font-size: 1.1rem;
    }
    dl {
      display: grid;
      grid-template-columns: max-content minmax(0, 1fr);
      gap: 0.5rem 1rem;
      margin: 0 0 1.2rem;
    }
    dd {
      margin: 0;
    }
    kbd {
      font-family: var(--mono);
      font-size: 0.8rem;
      padding: 0.05rem 0.35rem;
      border: 1px solid var(--border-strong);
      border-bottom-width: 2px;
      border-radius: 4px;
      background: var(--bg);
    }
  `,
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class ShortcutsDialog {
  private readonly dialog = viewChild.required<ElementRef<HTMLDialogElement>>('dialog');

  open(): void {
    const dialog = this.dialog().nativeElement;
    if (!dialog.open) dialog.showModal();
  }
}
