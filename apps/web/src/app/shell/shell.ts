import { ChangeDetectionStrategy, Component, DestroyRef, computed, inject } from '@angular/core';
import { Router, RouterLink, RouterLinkActive, RouterOutlet } from '@angular/router';
import { AuthStore } from '../auth/auth-store';
import { ChatSocket } from '../chat/chat-socket';
import { ConnectionIndicator } from './connection-indicator';

/** The signed-in frame: navigation, the operator and sign-out, the connection indicator. */
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

  constructor() {
    // Live updates exist only while signed in: the handshake carries the session cookie.
    this.socket.connect();
    inject(DestroyRef).onDestroy(() => this.socket.disconnect());
  }

  protected async signOut(): Promise<void> {
    this.socket.disconnect();
    await this.auth.signOut();
    await this.router.navigate(['/login']);
  }
}
