import { DestroyRef, Injectable, effect, inject, signal } from '@angular/core';
import { Router } from '@angular/router';
import { isTerminalEvent, type TurnActivity } from '@corpus-chat/contracts';
import { PageVisibility } from '../shared/page-visibility';
import { readStored, writeStored } from '../shared/storage';
import { ChatListStore } from './chat-list-store';
import { ChatSocket } from './chat-socket';
import { UNTITLED_THREAD } from './thread-labels';

/** A notice that one of the operator's turns ended in a thread not on screen. */
export interface TurnNotice {
  turnId: string;
  chatId: string;
  title: string;
  outcome: 'done' | 'error' | 'cancelled';
  /** The answer's first line (or the error's). */
  line: string;
}

/** Toasts kept at most; older ones go first. */
const MAX_NOTICES = 4;
const NOTIFY_KEY = 'cc.notifications';

/**
 * Notices of the operator's turns that ended in a thread not on screen (done, failed or stopped):
 * toasts until dismissed or the thread is opened, and, when turned on in Settings and allowed by
 * the browser, a system notification while the tab is hidden.
 */
@Injectable({ providedIn: 'root' })
export class NoticesStore {
  private readonly list = inject(ChatListStore);
  private readonly router = inject(Router);
  private readonly visible = inject(PageVisibility).visible;
  private readonly noticesSig = signal<TurnNotice[]>([]);
  private readonly notifySig = signal(readNotifyPreference());
  readonly notices = this.noticesSig.asReadonly();
  /** Whether system notifications are turned on (and allowed). */
  readonly notifications = this.notifySig.asReadonly();

  constructor() {
    const off = inject(ChatSocket).onActivity((a) => this.take(a));
    // Opening the thread answers its notice.
    effect(() => {
      const chatId = this.list.viewing();
      if (chatId) this.noticesSig.update((list) => list.filter((n) => n.chatId !== chatId));
    });
    inject(DestroyRef).onDestroy(off);
  }

  dismiss(turnId: string): void {
    this.noticesSig.update((list) => list.filter((n) => n.turnId !== turnId));
  }

  /** Turns system notifications on (asking the browser for permission) or off; resolves with the outcome. */
  async setNotifications(on: boolean): Promise<boolean> {
    const allowed =
      on && typeof Notification !== 'undefined' && (await Notification.requestPermission()) === 'granted';
    this.notifySig.set(allowed);
    writeStored(NOTIFY_KEY, allowed ? 'on' : 'off');
    return allowed;
  }

  private take({ event, thread, firstLine }: TurnActivity): void {
    if (!isTerminalEvent(event)) return;
    const onScreen = this.visible() && this.list.viewing() === event.chatId;
    const notice: TurnNotice = {
      turnId: event.turnId,
      chatId: event.chatId,
      title: thread?.title || UNTITLED_THREAD,
      outcome: event.type === 'turn.done' ? 'done' : event.type === 'turn.error' ? 'error' : 'cancelled',
      line: firstLine ?? '',
    };
    if (!onScreen)
      this.noticesSig.update((list) =>
        [...list.filter((n) => n.turnId !== notice.turnId), notice].slice(-MAX_NOTICES),
      );
    if (!this.visible() && this.notifySig()) this.notify(notice);
  }

  private notify(notice: TurnNotice): void {
    if (typeof Notification === 'undefined' || Notification.permission !== 'granted') return;
    const shown = new Notification(notice.title, { body: noticeText(notice), tag: notice.turnId });
    shown.onclick = () => {
      window.focus();
      void this.router.navigate(['/chat', notice.chatId]);
    };
  }
}

/** What a notice says: the answer's first line, or that the turn failed or was stopped. */
export function noticeText(notice: TurnNotice): string {
  if (notice.outcome === 'error') return $localize`:@@notice.failed:The turn failed: ${notice.line}:reason:`;
  if (notice.outcome === 'cancelled') return $localize`:@@notice.stopped:The turn was stopped.`;
  return notice.line || $localize`:@@notice.answered:The answer is ready.`;
}

function readNotifyPreference(): boolean {
  return (
    readStored(NOTIFY_KEY) === 'on' &&
    typeof Notification !== 'undefined' &&
    Notification.permission === 'granted'
  );
}
