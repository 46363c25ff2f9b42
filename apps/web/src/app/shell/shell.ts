import {
  ChangeDetectionStrategy,
  Component,
  DestroyRef,
  computed,
  effect,
  inject,
  untracked,
  viewChild,
} from '@angular/core';
import { Router, RouterLink, RouterLinkActive, RouterOutlet } from '@angular/router';
import { AuthStore } from '../auth/auth-store';
import { ChatSocket } from '../chat/chat-socket';
import { ChatListStore } from '../chat/chat-list-store';
import { Notices } from '../chat/notices';
import { roleLabel } from '../i18n/labels';
import { LanguageStore } from '../i18n/language-store';
import { LanguageSwitch } from '../i18n/language-switch';
import { ThemeToggle } from '../theme/theme-toggle';
import { ConnectionIndicator } from './connection-indicator';
import { ShortcutsDialog, isTypingTarget } from './shortcuts-dialog';
import { SignOut } from './sign-out';

/** A refused socket asks the API about the session at most this often (ms). */
const SESSION_RECHECK_MS = 10_000;

const NAV_ITEMS = [
  {
    path: '/chat',
    label: $localize`:@@nav.chat:Chat`,
    icon: 'M4 4h12a1 1 0 011 1v8a1 1 0 01-1 1H9l-4 3v-3H4a1 1 0 01-1-1V5a1 1 0 011-1z',
  },
  {
    path: '/reports',
    label: $localize`:@@nav.reports:Reports`,
    icon: 'M6 3h6l4 4v10a1 1 0 01-1 1H6a1 1 0 01-1-1V4a1 1 0 011-1zM12 3v4h4M8 11h5M8 14h5',
  },
  {
    path: '/reports/findings',
    label: $localize`:@@nav.findings:Findings`,
    icon: 'M8.5 3.5a5 5 0 100 10 5 5 0 000-10zM12.2 12.2L17 17',
  },
  {
    path: '/operators',
    label: $localize`:@@nav.operators:Operators`,
    icon:
      'M7.5 9a3 3 0 100-6 3 3 0 000 6zM2 17c0-3 2.5-5 5.5-5s5.5 2 5.5 5' +
      'M13.5 9.5a2.5 2.5 0 100-5M15 12.2c1.8.6 3 2.2 3 4.3',
  },
  {
    path: '/settings',
    label: $localize`:@@nav.settings:Settings`,
    icon:
      'M10 7a3 3 0 100 6 3 3 0 000-6zM10 2v2M10 16v2M2 10h2M16 10h2' +
      'M4.3 4.3l1.4 1.4M14.3 14.3l1.4 1.4M4.3 15.7l1.4-1.4M14.3 5.7l1.4-1.4',
  },
  { path: '/audit', label: $localize`:@@nav.audit:Audit log`, icon: 'M5 3h10v14H5zM8 7h4M8 10h4M8 13h2' },
  {
    path: '/feedback',
    label: $localize`:@@shell.nav.feedback:Feedback`,
    icon: 'M7 9v8H4V9zM7 9l3-6a2 2 0 012 2v3h4a1.5 1.5 0 011.5 1.8l-1.2 6A1.5 1.5 0 0113.8 17H7',
  },
];

/**
 * The signed-in frame: navigation, operator, sign-out, connection indicator. When the socket fails
 * to connect (a refused upgrade does not say why), it asks the API at most every 10 s whether the
 * session is valid: if not, to the login page; if so and the client gave up, it reconnects.
 */
@Component({
  selector: 'cc-shell',
  imports: [
    RouterOutlet,
    RouterLink,
    RouterLinkActive,
    ConnectionIndicator,
    LanguageSwitch,
    ShortcutsDialog,
    ThemeToggle,
    Notices,
  ],
  host: { '(document:keydown)': 'showShortcutsOnQuestionMark($event)' },
  templateUrl: './shell.html',
  styleUrl: './shell.css',
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class Shell {
  protected readonly auth = inject(AuthStore);
  private readonly socket = inject(ChatSocket);
  private readonly signOutFlow = inject(SignOut);
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

  protected readonly roleLabel = roleLabel;
  /** The sidebar's pages; the last four are for admins only. */
  protected readonly navItems = computed(() => NAV_ITEMS.slice(0, this.auth.isAdmin() ? undefined : 3));
  private lastRecheck = -Infinity;
  private readonly shortcuts = viewChild.required(ShortcutsDialog);

  constructor() {
    const language = inject(LanguageStore);
    effect(() => {
      const operator = this.auth.operator();
      if (operator) untracked(() => language.follow(operator));
    });
    // Live updates exist only while signed in: the handshake carries the session cookie.
    this.socket.connect();
    // The unread count in the tab's title holds on every page.
    const list = inject(ChatListStore);
    if (!list.loaded()) void list.load();
    inject(DestroyRef).onDestroy(() => {
      this.socket.disconnect();
      if (this.recheckTimer) clearTimeout(this.recheckTimer);
    });
    effect(() => {
      // Re-run on every failed attempt (the counter), not only on a change of state.
      if (this.socket.connectFailures() === 0) return;
      const state = this.socket.state();
      if (state === 'reconnecting' || state === 'offline') untracked(() => void this.recheckSession());
    });
  }

  private recheckTimer: ReturnType<typeof setTimeout> | null = null;

  private async recheckSession(): Promise<void> {
    const wait = this.lastRecheck + SESSION_RECHECK_MS - Date.now();
    if (wait > 0) {
      // Too soon after the last check: check once when the interval is over (a failure that left
      // the client offline in between is not forgotten).
      this.recheckTimer ??= setTimeout(() => {
        this.recheckTimer = null;
        const state = this.socket.state();
        if (this.socket.connectFailures() > 0 && (state === 'reconnecting' || state === 'offline'))
          void this.recheckSession();
      }, wait);
      return;
    }
    this.lastRecheck = Date.now();
    if (!(await this.auth.confirmSession())) {
      await this.router.navigate(['/login'], { queryParams: { returnUrl: this.router.url } });
      return;
    }
    // Still signed in (the cookie was renewed, or the session could not be checked): a client that
    // gave up tries again, at most once per interval; one still retrying keeps its own back-off.
    if (this.socket.state() === 'offline') this.socket.reconnect();
  }

  /** `?` outside a text field lists the keyboard shortcuts. */
  protected showShortcutsOnQuestionMark(event: KeyboardEvent): void {
    if (event.key !== '?' || event.ctrlKey || event.metaKey || event.altKey || isTypingTarget(event.target))
      return;
    event.preventDefault();
    this.showShortcuts();
  }

  protected showShortcuts(): void {
    this.shortcuts().open();
  }

  protected signOut(): Promise<void> {
    return this.signOutFlow.signOut();
  }
}
