import { ChangeDetectionStrategy, Component, inject, signal } from '@angular/core';
import { Router, RouterLink, RouterLinkActive, RouterOutlet } from '@angular/router';
import type { ChatSummaryView } from '@corpus-chat/contracts';
import { describeHttpError } from '../http/api-error';
import { ChatListStore } from './chat-list-store';
import { ThreadView } from './thread-view';
import { DisplayTextPipe } from '../shared/display-text';

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
const dateOnly = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', year: 'numeric' });

/** "just now", "5 minutes ago", "yesterday", then a date: when a thread was last active. */
export function formatLastActivity(iso: string, now = Date.now()): string {
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  if (Number.isNaN(seconds)) return '';
  if (seconds > -45) return 'just now';
  if (seconds > -3600) return relative.format(Math.round(seconds / 60), 'minute');
  if (seconds > -86400) return relative.format(Math.round(seconds / 3600), 'hour');
  if (seconds > -7 * 86400) return relative.format(Math.round(seconds / 86400), 'day');
  return dateOnly.format(new Date(iso));
}

/** `/chat`: the thread list beside the open thread (on a narrow window, one or the other). */
@Component({
  selector: 'cc-chat-page',
  imports: [DisplayTextPipe, RouterLink, RouterLinkActive, RouterOutlet],
  templateUrl: './chat-page.html',
  styleUrl: './chat-page.css',
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class ChatPage {
  protected readonly list = inject(ChatListStore);
  private readonly router = inject(Router);
  protected readonly threadOpen = signal(false);
  protected readonly creating = signal(false);
  protected readonly createError = signal<string | null>(null);
  protected readonly lastActivity = formatLastActivity;

  constructor() {
    void this.list.load();
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
    } catch (err) {
      this.createError.set(describeHttpError(err));
    } finally {
      this.creating.set(false);
    }
  }

  protected outletActivated(component: unknown): void {
    this.threadOpen.set(component instanceof ThreadView);
  }
}
