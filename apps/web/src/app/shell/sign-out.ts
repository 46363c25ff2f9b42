import { Injectable, inject } from '@angular/core';
import { Router } from '@angular/router';
import { AuthStore } from '../auth/auth-store';
import { ChatSocket } from '../chat/chat-socket';
import { clearDrafts } from '../chat/drafts';

/** A deliberate sign-out, here or everywhere: the socket closes, drafts go, the login page opens. */
@Injectable({ providedIn: 'root' })
export class SignOut {
  private readonly auth = inject(AuthStore);
  private readonly socket = inject(ChatSocket);
  private readonly router = inject(Router);

  async signOut(everywhere = false): Promise<void> {
    this.socket.disconnect();
    // Unsent questions outlive an expired session, not a deliberate sign-out.
    clearDrafts();
    await this.auth.signOut(everywhere);
    await this.router.navigate(['/login']);
  }
}
