import { DestroyRef, Injectable, inject, signal } from '@angular/core';

/** The time now (ms since the epoch), renewed every second: for elapsed times and waits on screen. */
@Injectable({ providedIn: 'root' })
export class Clock {
  private readonly nowSig = signal(Date.now());
  readonly now = this.nowSig.asReadonly();

  constructor() {
    const timer = setInterval(() => this.nowSig.set(Date.now()), 1000);
    inject(DestroyRef).onDestroy(() => clearInterval(timer));
  }
}
