import { ChangeDetectionStrategy, Component, input, linkedSignal } from '@angular/core';

/**
 * A secret the API answers once (an API token, a webhook signing secret): the projected text says
 * what it is, the field selects it on focus, and Copy puts it on the clipboard.
 */
@Component({
  selector: 'cc-secret-once',
  template: `
    <div class="secret" role="status">
      <p><ng-content /></p>
      <input readonly [value]="secret()" [attr.aria-label]="label()" (focus)="$any($event.target).select()" />
      <button type="button" (click)="copySecret()">
        @if (copied()) {
          <ng-container i18n="@@tokens.copied">Copied</ng-container>
        } @else {
          <ng-container i18n="@@tokens.copy">Copy</ng-container>
        }
      </button>
    </div>
  `,
  styles: `
    .secret {
      display: flex;
      flex-wrap: wrap;
      gap: 0.5rem;
      align-items: center;
      background: var(--ok-soft);
      border-radius: var(--radius);
      padding: 0.5rem 0.75rem;
    }
    .secret p {
      margin: 0;
      flex-basis: 100%;
    }
    .secret input {
      flex: 1;
      font-family: monospace;
    }
  `,
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class SecretOnce {
  readonly secret = input.required<string>();
  /** The field's accessible name. */
  readonly label = input.required<string>();
  /** Back to "Copy" for each new secret. */
  protected readonly copied = linkedSignal({ source: this.secret, computation: () => false });

  protected async copySecret(): Promise<void> {
    await navigator.clipboard.writeText(this.secret());
    this.copied.set(true);
  }
}
