import {
  ChangeDetectionStrategy,
  Component,
  Injector,
  LOCALE_ID,
  afterNextRender,
  inject,
  signal,
} from '@angular/core';
import { DatePipe, DecimalPipe } from '@angular/common';
import { Router, RouterLink, RouterLinkActive, RouterOutlet } from '@angular/router';
import type { ChatSummaryView } from '@corpus-chat/contracts';
import { describeHttpError } from '../http/api-error';
import { ChatListStore } from './chat-list-store';
import { RunningPanel } from './running-panel';
import { ThreadView } from './thread-view';
import { DisplayTextPipe } from '../shared/display-text';
import { UNTITLED_THREAD } from './thread-labels';

/** "just now", "5 minutes ago", "yesterday", then a date, in `locale`: when a thread was last active. */
export function formatLastActivity(iso: string, locale: string, now = Date.now()): string {
  const relative = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' });
  const dateOnly = new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short', year: 'numeric' });
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  if (Number.isNaN(seconds)) return '';
  if (seconds > -45) return $localize`:@@chat.justNow:just now`;
  if (seconds > -3600) return relative.format(Math.round(seconds / 60), 'minute');
  if (seconds > -86400) return relative.format(Math.round(seconds / 3600), 'hour');
  if (seconds > -7 * 86400) return relative.format(Math.round(seconds / 86400), 'day');
  return dateOnly.format(new Date(iso));
}

/** `/chat`: the thread list beside the open thread (on a narrow window, one or the other). */
@Component({
  selector: 'cc-chat-page',
  imports: [DatePipe, DecimalPipe, DisplayTextPipe, RouterLink, RouterLinkActive, RouterOutlet, RunningPanel],
  templateUrl: './chat-page.html',
  styleUrl: './chat-page.css',
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class ChatPage {
  protected readonly list = inject(ChatListStore);
  private readonly router = inject(Router);
  private readonly injector = inject(Injector);
  /** The thread shown in the outlet, if any. */
  private thread: ThreadView | null = null;
  protected readonly threadOpen = signal(false);
  protected readonly creating = signal(false);
  protected readonly createError = signal<string | null>(null);
  private readonly locale = inject(LOCALE_ID);
  protected readonly untitled = UNTITLED_THREAD;

  protected lastActivity(iso: string): string {
    return formatLastActivity(iso, this.locale);
  }

  constructor() {
    if (!this.list.loaded()) void this.list.load();
  }

  protected async newThread(): Promise<void> {
    if (this.creating()) return;
    this.creating.set(true);
    this.createError.set(null);
    try {
      // From the archive view, a new thread; otherwise an unused one of the list if there is one.
      let chat: ChatSummaryView;
      if (this.list.archived()) {
        this.list.showArchived(false);
        chat = await this.list.create();
      } else {
        chat = await this.list.openOrCreateEmpty();
      }
      await this.router.navigate(['/chat', chat.id]);
      // The next thing typed is the question: the composer takes the focus from the button.
      afterNextRender(() => this.thread?.focusComposer(), { injector: this.injector });
    } catch (err) {
      this.createError.set(describeHttpError(err));
    } finally {
      this.creating.set(false);
    }
  }

  protected outletActivated(component: unknown): void {
    this.thread = component instanceof ThreadView ? component : null;
    this.threadOpen.set(!!this.thread);
  }
}
