import { DOCUMENT, DestroyRef, Injectable, inject, signal } from '@angular/core';

/** Whether the page is visible (its tab in front), as a signal. */
@Injectable({ providedIn: 'root' })
export class PageVisibility {
  private readonly doc = inject(DOCUMENT);
  private readonly visibleSig = signal(this.doc.visibilityState !== 'hidden');
  readonly visible = this.visibleSig.asReadonly();

  constructor() {
    const update = () => this.visibleSig.set(this.doc.visibilityState !== 'hidden');
    this.doc.addEventListener('visibilitychange', update);
    inject(DestroyRef).onDestroy(() => this.doc.removeEventListener('visibilitychange', update));
  }
}
