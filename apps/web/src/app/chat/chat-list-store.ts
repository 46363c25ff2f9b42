import { DOCUMENT, DestroyRef, Injectable, computed, inject, signal } from '@angular/core';
import type { ChatSummaryView, UpdateChatDto } from '@corpus-chat/contracts';
import { describeHttpError } from '../http/api-error';
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

/** Delay before re-reading the list after a burst of `chat:thread-updated` events. */
const REFRESH_DEBOUNCE_MS = 250;
/** While a listed thread has a running turn, re-read the list this often (its marker must clear). */
const RUNNING_POLL_MS = 10_000;

/**
 * The operator's thread list: active or archived, filtered by title, newest activity first. Stays
 * current across tabs: a `chat:thread-updated` from the gateway (sent to the followers of a thread
 * when its title changes or a turn ends) re-reads the list; so does coming back to the tab, and a
 * slow poll while some listed thread has a running turn (a turn started in another tab on a thread
 * this tab does not follow).
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
    const off = inject(ChatSocket).onThreadUpdated(() => this.scheduleRefresh());
    const doc = inject(DOCUMENT);
    const onVisible = () => {
      if (doc.visibilityState === 'visible' && this.state().loaded) this.scheduleRefresh();
    };
    doc.addEventListener('visibilitychange', onVisible);
    const poll = setInterval(() => {
      if (doc.visibilityState === 'visible' && this.state().threads.some((t) => t.activeTurn))
        void this.load();
    }, RUNNING_POLL_MS);
    inject(DestroyRef).onDestroy(() => {
      off();
      doc.removeEventListener('visibilitychange', onVisible);
      clearInterval(poll);
      if (this.refreshTimer) clearTimeout(this.refreshTimer);
    });
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

  /** Replaces (or adds) one entry from a fresher view, e.g. the thread just read in full. */
  upsert(summary: ChatSummaryView): void {
    this.state.update((s) => {
      if (summary.archived !== s.archived) return s;
      const rest = s.threads.filter((t) => t.id !== summary.id);
      const { id, title, archived, messageCount, lastModel, activeTurn, createdAt, updatedAt } = summary;
      return {
        ...s,
        threads: [
          { id, title, archived, messageCount, lastModel, activeTurn, createdAt, updatedAt },
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
