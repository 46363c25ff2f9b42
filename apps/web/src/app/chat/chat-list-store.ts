import { DestroyRef, Injectable, computed, effect, inject, signal, untracked } from '@angular/core';
import type { ChatSummaryView, UpdateChatDto } from '@corpus-chat/contracts';
import { describeHttpError } from '../http/api-error';
import { PageVisibility } from '../shared/page-visibility';
import { ChatApi } from './chat-api';
import { ChatSocket } from './chat-socket';

interface ChatListState {
  threads: ChatSummaryView[];
  archived: boolean;
  query: string;
  loading: boolean;
  loaded: boolean;
  error: string | null;
}

/** Delay before re-reading the list after a reconnect (coalesces bursts). */
const REFRESH_DEBOUNCE_MS = 250;

/**
 * The operator's thread list (active or archived, filtered by title, newest first, unread marked),
 * kept current across tabs by `chat:thread-updated` and `chat:activity`; re-read after a reconnect.
 * The thread on screen is marked seen when opened and when an answer lands while visible.
 */
@Injectable({ providedIn: 'root' })
export class ChatListStore {
  private readonly api = inject(ChatApi);
  private readonly state = signal<ChatListState>({
    threads: [],
    archived: false,
    query: '',
    loading: false,
    loaded: false,
    error: null,
  });
  private refreshTimer: ReturnType<typeof setTimeout> | null = null;
  private loadSeq = 0;
  private readonly visible = inject(PageVisibility).visible;
  private readonly viewingSig = signal<string | null>(null);
  /** The thread last marked seen, and whether a request for it is on its way. */
  private marked: { chatId: string | null; pending: boolean } = { chatId: null, pending: false };

  /** The thread on screen, if any. */
  readonly viewing = this.viewingSig.asReadonly();
  /** Threads with an answer the operator has not seen (the one on screen counts as seen). */
  readonly unreadCount = computed(() => {
    const shown = this.visible() ? this.viewingSig() : null;
    return this.state().threads.filter((t) => t.unread && t.id !== shown).length;
  });

  readonly archived = computed(() => this.state().archived);
  readonly query = computed(() => this.state().query);
  readonly loading = computed(() => this.state().loading);
  readonly loaded = computed(() => this.state().loaded);
  readonly error = computed(() => this.state().error);
  /** Threads of the current filter, most recent activity first. */
  readonly threads = computed(() => {
    const { threads, query } = this.state();
    const q = query.trim().toLowerCase();
    return threads
      .filter((t) => !q || t.title.toLowerCase().includes(q))
      .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  });

  constructor() {
    const socket = inject(ChatSocket);
    const offUpdated = socket.onThreadUpdated((u) =>
      u.thread ? this.upsert(u.thread) : this.drop(u.chatId),
    );
    const offActivity = socket.onActivity((a) => a.thread && this.upsert(a.thread));
    let wasConnected = false;
    effect(() => {
      const connected = socket.state() === 'connected';
      if (connected && !wasConnected && untracked(() => this.state().loaded)) this.scheduleRefresh();
      wasConnected = connected;
    });
    effect(() => {
      const chatId = this.viewingSig();
      const unread = this.state().threads.some((t) => t.id === chatId && t.unread);
      if (chatId && this.visible()) untracked(() => this.markSeen(chatId, unread));
    });
    inject(DestroyRef).onDestroy(() => {
      offUpdated();
      offActivity();
      if (this.refreshTimer) clearTimeout(this.refreshTimer);
    });
  }

  /** Says which thread is on screen (null: none); an unread one is marked seen while the page is visible. */
  setViewing(chatId: string | null): void {
    if (chatId !== this.viewingSig()) this.marked = { chatId: null, pending: false };
    this.viewingSig.set(chatId);
  }

  /** Opening a thread marks it seen once; later only when it has become unread again. */
  private markSeen(chatId: string, unread: boolean): void {
    const first = this.marked.chatId !== chatId;
    if (!first && (!unread || this.marked.pending)) return;
    this.marked = { chatId, pending: true };
    // The server sends the entry with `unread: false` to every page of the operator.
    this.api.markSeen(chatId).then(
      () => (this.marked.pending = false),
      () => (this.marked = { chatId: null, pending: false }),
    );
  }

  /** Reads the list of the current archive filter. */
  async load(): Promise<void> {
    const seq = ++this.loadSeq;
    const archived = this.state().archived;
    this.patch({ loading: true, error: null });
    try {
      const threads = await this.api.list(archived);
      if (seq === this.loadSeq) this.patch({ threads, loading: false, loaded: true });
    } catch (err) {
      if (seq === this.loadSeq) this.patch({ loading: false, error: describeHttpError(err) });
    }
  }

  /** Re-reads the list soon (coalesces bursts of updates). */
  scheduleRefresh(): void {
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = null;
      void this.load();
    }, REFRESH_DEBOUNCE_MS);
  }

  showArchived(archived: boolean): void {
    if (archived === this.state().archived) return;
    this.patch({ archived, threads: [], loaded: false });
    void this.load();
  }

  setQuery(query: string): void {
    this.patch({ query });
  }

  /** Creates an empty thread and puts it on top of the list. */
  async create(): Promise<ChatSummaryView> {
    const created = await this.api.create({});
    if (!this.state().archived) this.upsert(created);
    return created;
  }

  /**
   * The thread a "New thread" click should open: an untitled, unarchived thread of the loaded list
   * with no message and no turn (one made by an earlier click and never used), else a new one. So
   * clicking "New thread" twice does not leave empty threads behind.
   */
  async openOrCreateEmpty(): Promise<ChatSummaryView> {
    const { threads, archived, loaded } = this.state();
    const unused =
      loaded && !archived
        ? threads.find((t) => t.messageCount === 0 && !t.activeTurn && !t.title.trim() && !t.archived)
        : undefined;
    return unused ?? this.create();
  }

  /** Renames or (un)archives a thread; the entry leaves the list when it no longer matches the filter. */
  async update(chatId: string, change: UpdateChatDto): Promise<ChatSummaryView> {
    const updated = await this.api.update(chatId, change);
    if (updated.archived !== this.state().archived) this.drop(chatId);
    else this.upsert(updated);
    return updated;
  }

  /** Deletes a thread (the API cancels its running turn first). */
  async remove(chatId: string): Promise<void> {
    await this.api.remove(chatId);
    this.drop(chatId);
  }

  /**
   * Replaces (or adds) one entry from a fresher view, e.g. the thread just read in full; an entry
   * that no longer matches the archive filter leaves the list.
   */
  upsert(summary: ChatSummaryView): void {
    this.state.update((s) => {
      const rest = s.threads.filter((t) => t.id !== summary.id);
      if (summary.archived !== s.archived) return { ...s, threads: rest };
      const { id, title, archived, messageCount, lastModel, activeTurn, unread, createdAt, updatedAt } =
        summary;
      return {
        ...s,
        threads: [
          { id, title, archived, messageCount, lastModel, activeTurn, unread, createdAt, updatedAt },
          ...rest,
        ],
      };
    });
  }

  private drop(chatId: string): void {
    this.state.update((s) => ({ ...s, threads: s.threads.filter((t) => t.id !== chatId) }));
  }

  private patch(change: Partial<ChatListState>): void {
    this.state.update((s) => ({ ...s, ...change }));
  }
}
