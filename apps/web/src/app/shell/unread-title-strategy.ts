import { Injectable, effect, inject, signal } from '@angular/core';
import { Title } from '@angular/platform-browser';
import { type RouterStateSnapshot, TitleStrategy } from '@angular/router';
import { ChatListStore } from '../chat/chat-list-store';

/** The route's title, led by the count of unread threads: "(2) Chat · Corpus Chat". */
@Injectable({ providedIn: 'root' })
export class UnreadTitleStrategy extends TitleStrategy {
  private readonly title = inject(Title);
  private readonly base = signal('Corpus Chat');

  constructor() {
    super();
    const list = inject(ChatListStore);
    effect(() => {
      const unread = list.unreadCount();
      this.title.setTitle(unread ? `(${unread}) ${this.base()}` : this.base());
    });
  }

  override updateTitle(snapshot: RouterStateSnapshot): void {
    this.base.set(this.buildTitle(snapshot) ?? 'Corpus Chat');
  }
}
