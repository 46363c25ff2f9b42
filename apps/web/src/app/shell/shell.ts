import { ChangeDetectionStrategy, Component, DestroyRef, computed, effect, inject, untracked } from '@angular/core';
import { SocketRefusals } from '@corpus-chat/contracts';
import { Router, RouterLink, RouterLinkActive, RouterOutlet } from '@angular/router';
import { AuthStore } from '../auth/auth-store';
import { ChatSocket } from '../chat/chat-socket';
import { ConnectionIndicator } from './connection-indicator';

/** A refused socket asks the API about the session at most this often (ms). */
const SESSION_RECHECK_MS = 10_000;

/**
 * The signed-in frame: navigation, the operator and sign-out, the connection indicator. When the
 * chat socket is refused as "unauthorized" (its session expired or the operator was disabled), the
 * shell asks the API whether the session is still valid: if not, it goes to the login page (and
 * back afterwards); if it is (the cookie was renewed since, e.g. by a password change), it connects
 * again.
 */
@Component({
  selector: 'cc-shell',
  imports: [RouterOutlet, RouterLink, RouterLinkActive, ConnectionIndicator],
  templateUrl: './shell.html',
  styleUrl: './shell.css',
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class Shell {
  protected readonly auth = inject(AuthStore);
  private readonly socket = inject(ChatSocket);
  private readonly router = inject(Router);
  protected readonly initials = computed(() => {
    const name = this.auth.operator()?.displayName || this.auth.operator()?.username || '';
    return name
      .split(/\s+/)
      .filter(Boolean)
      .slice(0, 2)
      .map((w) => w[0]!.toUpperCase())
      .join('');
  });

  private lastRecheck = -Infinity;

  constructor() {
    // Live updates exist only while signed in: the handshake carries the session cookie.
    this.socket.connect();
    inject(DestroyRef).onDestroy(() => this.socket.disconnect());
    effect(() => {
      if (this.socket.state() === 'offline' && this.socket.lastError() === SocketRefusals.unauthorized) {
        untracked(() => void this.recheckSession());
      }
    });
  }

  private async recheckSession(): Promise<void> {
    if (Date.now() - this.lastRecheck < SESSION_RECHECK_MS) return;
    this.lastRecheck = Date.now();
    if (await this.auth.confirmSession()) this.socket.reconnect();
    else await this.router.navigate(['/login'], { queryParams: { returnUrl: this.router.url } });
  }

  protected async signOut(): Promise<void> {
    this.socket.disconnect();
    await this.auth.signOut();
    await this.router.navigate(['/login']);
  }
}
