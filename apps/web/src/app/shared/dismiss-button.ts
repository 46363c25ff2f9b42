import { Directive } from '@angular/core';

/** `<button ccDismiss (click)="…">✕</button>`: a plain button that screen readers call "Dismiss". */
@Directive({
  selector: 'button[ccDismiss]',
  host: { type: 'button', '[attr.aria-label]': 'label' },
})
export class DismissButton {
  protected readonly label = $localize`:@@common.dismiss:Dismiss`;
}
