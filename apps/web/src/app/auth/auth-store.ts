import { Injectable, computed, inject, signal } from '@angular/core';
import type { OperatorView } from '@corpus-chat/contracts';
import { SESSION_ENDED, describeHttpError, httpStatus } from '../http/api-error';
import { AuthApi } from './auth-api';

/**
 * `unknown` until `/api/auth/me` answered. `signed-in` with `operator: null` means the API has no
 * accounts (an API without the auth module answers 404 on `/api/auth/me`): the app then works
 * without a sign-in, as before operators existed.
 */
export type SessionState =
  | { status: 'unknown' }
  | { status: 'signed-in'; operator: OperatorView | null }
  | { status: 'signed-out'; reason?: string };

/** The operator's session: who is signed in, sign-in and sign-out. */
@Injectable({ providedIn: 'root' })
export class AuthStore {
  private readonly api = inject(AuthApi);
  private readonly state = signal<SessionState>({ status: 'unknown' });
  private pendingLoad: Promise<SessionState> | null = null;

  readonly session = this.state.asReadonly();
  readonly operator = computed(() => {
    const s = this.state();
    return s.status === 'signed-in' ? s.operator : null;
  });
  readonly isAdmin = computed(() => {
    const s = this.state();
    return s.status === 'signed-in' && (s.operator === null || s.operator.role === 'admin');
  });

  /** Asks the API who is signed in (once; concurrent callers share the request). */
  loadSession(): Promise<SessionState> {
    const current = this.state();
    if (current.status !== 'unknown') return Promise.resolve(current);
    this.pendingLoad ??= this.api
      .me()
      .then((operator): SessionState => ({ status: 'signed-in', operator }))
      .catch((err: unknown): SessionState => {
        if (httpStatus(err) === 404) return { status: 'signed-in', operator: null };
        if (httpStatus(err) === 401) return { status: 'signed-out' };
        return { status: 'signed-out', reason: describeHttpError(err) };
      })
      .then((s) => {
        this.state.set(s);
        this.pendingLoad = null;
        return s;
      });
    return this.pendingLoad;
  }

  /**
   * Signs in with a username and password.
   * @returns `null` on success, otherwise the message to show (the API's generic 401 text).
   */
  async signIn(username: string, password: string): Promise<string | null> {
    try {
      const operator = await this.api.login({ username, password });
      this.state.set({ status: 'signed-in', operator });
      return null;
    } catch (err) {
      return httpStatus(err) === 401
        ? $localize`:@@login.wrongCredentials:Wrong username or password.`
        : describeHttpError(err);
    }
  }

  /**
   * Changes the signed-in operator's own password. The API ends every other session and renews this
   * one's cookie.
   * @returns `null` on success, otherwise the message to show (e.g. a wrong current password).
   */
  async changePassword(currentPassword: string, newPassword: string): Promise<string | null> {
    try {
      const operator = await this.api.changePassword({ currentPassword, newPassword });
      this.state.set({ status: 'signed-in', operator });
      return null;
    } catch (err) {
      if (httpStatus(err) === 401) {
        this.markSessionExpired();
        return SESSION_ENDED();
      }
      return describeHttpError(err);
    }
  }

  /**
   * Ends this session (`everywhere`: every session of the operator) and clears the cookie; the
   * local state is signed out even if the API cannot be reached.
   */
  async signOut(everywhere = false): Promise<void> {
    try {
      await (everywhere ? this.api.logoutEverywhere() : this.api.logout());
    } finally {
      this.state.set({ status: 'signed-out' });
    }
  }

  /**
   * Asks the API again whether the session is still valid (the chat socket was refused as
   * "unauthorized"): `false`, and the state signed out, when it answers 401; `true` otherwise (valid,
   * e.g. renewed since, or the API could not say).
   */
  async confirmSession(): Promise<boolean> {
    try {
      const operator = await this.api.me();
      if (this.state().status === 'signed-in') this.state.set({ status: 'signed-in', operator });
      return true;
    } catch (err) {
      if (httpStatus(err) !== 401) return true;
      this.markSessionExpired();
      return false;
    }
  }

  /** Called when any API call answers 401: the cookie expired or the operator was disabled. */
  markSessionExpired(): void {
    if (this.state().status === 'signed-in') {
      this.state.set({ status: 'signed-out', reason: SESSION_ENDED() });
    }
  }
}
