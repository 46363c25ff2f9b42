import { DatePipe } from '@angular/common';
import { ChangeDetectionStrategy, Component, type OnInit, inject, signal } from '@angular/core';
import type { SessionView } from '@corpus-chat/contracts';
import { SignOut } from '../shell/sign-out';
import { deviceOf } from './device-of';
import { SessionsStore } from './sessions-store';

/**
 * "Where you are signed in" on My account: the operator's sessions (device from the user agent,
 * address, signed in, last seen), "Sign out" of one of them, and "Sign out everywhere".
 */
@Component({
  selector: 'cc-sessions-panel',
  imports: [DatePipe],
  template: `
    <h2 id="sessions-heading" i18n="@@sessions.heading">Where you are signed in</h2>
    @if (message(); as m) {
      <p class="error" role="alert">{{ m }}</p>
    }
    @if (store.loadError(); as e) {
      <p class="error" role="alert">{{ e }}</p>
    }
    @if (store.sessions().length) {
      <table aria-labelledby="sessions-heading" data-testid="sessions">
        <thead>
          <tr>
            <th i18n="@@sessions.device">Device</th>
            <th i18n="@@sessions.address">Address</th>
            <th i18n="@@sessions.signedIn">Signed in</th>
            <th i18n="@@sessions.lastSeen">Last seen</th>
            <th><span class="sr-only" i18n="@@sessions.actions">Actions</span></th>
          </tr>
        </thead>
        <tbody>
          @for (s of store.sessions(); track s.id) {
            <tr>
              <td [title]="s.userAgent">
                {{ device(s) }}
                @if (s.current) {
                  <span class="badge" i18n="@@sessions.thisOne">this browser</span>
                }
              </td>
              <td>
                <code>{{ s.ip }}</code>
              </td>
              <td>{{ s.createdAt | date: 'medium' }}</td>
              <td>{{ s.lastSeenAt | date: 'medium' }}</td>
              <td>
                @if (!s.current) {
                  <button
                    type="button"
                    (click)="endSession(s.id)"
                    [attr.aria-label]="endLabel(s)"
                    i18n="@@sessions.end"
                  >
                    Sign out
                  </button>
                }
              </td>
            </tr>
          }
        </tbody>
      </table>
    }
    <div>
      <button
        type="button"
        class="danger"
        (click)="signOutEverywhere()"
        [disabled]="busy()"
        i18n="@@sessions.everywhere"
      >
        Sign out everywhere
      </button>
      <p class="muted hint" i18n="@@sessions.everywhereHint">
        Ends every session of your account, this one included. API tokens stay valid: revoke them below.
      </p>
    </div>
  `,
  styleUrl: '../shared/account-panel.css',
  styles: `
    .badge {
      margin-left: 0.4rem;
      font-size: 0.8em;
      padding: 0.05rem 0.4rem;
      border-radius: var(--radius);
      background: var(--ok-soft);
    }
  `,
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class SessionsPanel implements OnInit {
  protected readonly store = inject(SessionsStore);
  private readonly signOut = inject(SignOut);
  protected readonly busy = signal(false);
  protected readonly message = signal<string | null>(null);

  ngOnInit(): void {
    void this.store.load();
  }

  protected device(s: SessionView): string {
    const { browser, system } = deviceOf(s.userAgent);
    if (browser && system) return $localize`:@@sessions.browserOn:${browser}:browser: on ${system}:system:`;
    return browser ?? system ?? $localize`:@@sessions.unknownDevice:Unknown device`;
  }

  protected endLabel(s: SessionView): string {
    return $localize`:@@sessions.endNamed:Sign out ${this.device(s)}:device: at ${s.ip}:address:`;
  }

  protected async endSession(id: string): Promise<void> {
    this.message.set(await this.store.end(id));
  }

  protected async signOutEverywhere(): Promise<void> {
    this.busy.set(true);
    await this.signOut.signOut(true);
  }
}
