import { DestroyRef, Injectable, computed, inject, signal } from '@angular/core';
import {
  NO_SEQ,
  type AnswerVerification,
  type ChatDetailView,
  type ChatEvent,
  type ChatMessageView,
  type FeedbackRating,
  type JoinChatAck,
} from '@corpus-chat/contracts';
import { describeHttpError, failureOf, httpStatus } from '../http/api-error';
import { ChatApi } from './chat-api';
import { ChatListStore } from './chat-list-store';
import { ChatSocket } from './chat-socket';
import { newClientMessageId } from './client-message-id';
import {
  applyChatEvent,
  hasGap,
  isTurnOver,
  newLiveTurn,
  partsOfMessage,
  reasoningOfMessage,
  verificationOfMessage,
  type LiveTurn,
  type TurnPart,
} from './turn-state';

/** A thread id as the API makes them (a UUID). */
const THREAD_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Shown for an unknown, deleted, another operator's, or malformed thread id alike. */
export const THREAD_MISSING = $localize`:@@thread.missing:This thread does not exist. It may have been deleted, or the link is incomplete.`;

interface ThreadState {
  chatId: string | null;
  chat: ChatDetailView | null;
  loading: boolean;
  loadError: string | null;
  live: LiveTurn | null;
  sending: boolean;
  stopping: boolean;
  /** A message about the last action (409 busy, truncated message, failed send…). */
  notice: string | null;
}

/** The last socket event received for the open thread (any turn, duplicates included). */
export interface ReceivedEvent {
  turnId: string;
  seq: string;
  type: ChatEvent['type'];
}

/** One entry of the conversation as the thread view draws it. */
export type ThreadEntry =
  | { kind: 'user'; key: string; message: ChatMessageView }
  | {
      kind: 'assistant';
      key: string;
      message: ChatMessageView;
      parts: TurnPart[];
      verification: AnswerVerification | null;
      reasoning: string | null;
    }
  | { kind: 'live'; key: string; turn: LiveTurn };

/** Wait before asking for a replay when an event was dropped behind a missing one. */
const GAP_REPAIR_MS = 1500;
/** Wait for `turn.cancelled` after a stop request before re-reading the thread. */
const STOP_CHECK_MS = 5000;

const initialState: ThreadState = {
  chatId: null,
  chat: null,
  loading: false,
  loadError: null,
  live: null,
  sending: false,
  stopping: false,
  notice: null,
};

/**
 * One open thread: stored messages plus the running turn reduced from `chat:event`s (`LiveTurn`),
 * provided by the thread view. Mid-turn reloads rejoin and get the turn replayed; when the turn
 * ends the thread is re-read and the stored answer replaces the live one (same turn id).
 */
@Injectable()
export class ThreadStore {
  private readonly api = inject(ChatApi);
  private readonly socket = inject(ChatSocket);
  private readonly list = inject(ChatListStore);
  private readonly state = signal<ThreadState>(initialState);
  private stopWatching: (() => void) | null = null;
  private gapTimer: ReturnType<typeof setTimeout> | null = null;
  private stopTimer: ReturnType<typeof setTimeout> | null = null;
  private failedSend: { content: string; clientMessageId: string } | null = null;
  /** The first read of the open thread; a question sent before it finished waits for it. */
  private loaded: Promise<void> = Promise.resolve();

  readonly chatId = computed(() => this.state().chatId);
  readonly chat = computed(() => this.state().chat);
  readonly loading = computed(() => this.state().loading);
  readonly loadError = computed(() => this.state().loadError);
  readonly live = computed(() => this.state().live);
  readonly sending = computed(() => this.state().sending);
  readonly stopping = computed(() => this.state().stopping);
  readonly notice = computed(() => this.state().notice);
  private readonly lastEventSig = signal<ReceivedEvent | null>(null);
  /** For the debug panel: kept apart from `state` so a duplicate event does not redraw the thread. */
  readonly lastEvent = this.lastEventSig.asReadonly();

  /** A turn of this thread is queued or running. */
  readonly running = computed(() => {
    const live = this.state().live;
    return !!live && !isTurnOver(live) && !this.isStored(live.turnId);
  });
  /**
   * Sending is possible: a thread is open, no turn running and no POST in flight (typing is always
   * possible). While the thread is still loading a send waits for it.
   */
  readonly canSend = computed(
    () => !!this.state().chatId && !this.state().loadError && !this.running() && !this.state().sending,
  );

  /**
   * The conversation in order: stored messages, then the live turn unless it is stored already. A
   * failed or stopped turn whose question was asked again right after it (Retry) is replaced by
   * that retry: its question and answer are left out.
   */
  readonly entries = computed<ThreadEntry[]>(() => {
    const { chat, live } = this.state();
    const entries: ThreadEntry[] = withoutRetriedTurns(chat?.messages ?? []).map((m) =>
      m.role === 'user'
        ? { kind: 'user', key: m.id, message: m }
        : {
            kind: 'assistant',
            key: m.id,
            message: m,
            parts: partsOfMessage(m),
            verification: verificationOfMessage(m),
            reasoning: reasoningOfMessage(m),
          },
    );
    if (live && !this.isStored(live.turnId))
      entries.push({ kind: 'live', key: `live-${live.turnId}`, turn: live });
    return entries;
  });

  /** The turn that failed or was stopped last, offered for Retry (only when it is the latest turn). */
  readonly retryableTurnId = computed(() => {
    if (this.running()) return null;
    const last = this.entries().at(-1);
    if (last?.kind === 'assistant' && RETRYABLE.has(last.message.status)) return last.message.turnId;
    if (last?.kind === 'live' && (last.turn.phase === 'error' || last.turn.phase === 'cancelled'))
      return last.turn.turnId;
    return null;
  });

  constructor() {
    const offEvents = this.socket.onEvent((e) => this.applyEvent(e));
    inject(DestroyRef).onDestroy(() => {
      offEvents();
      this.close();
    });
  }

  /** Shows a thread: reads it, then follows its room (replaying an active turn from its start). */
  async open(chatId: string): Promise<void> {
    if (this.state().chatId === chatId) return;
    this.close();
    this.lastEventSig.set(null);
    this.state.set({ ...initialState, chatId, loading: true });
    this.loaded = this.refresh();
    await this.loaded;
    if (this.state().chatId !== chatId || this.state().loadError) return;
    this.stopWatching = this.socket.watch(
      chatId,
      () => this.afterSeq(),
      (ack) => this.applyJoinAck(chatId, ack),
    );
  }

  /** Stops following the current thread. */
  close(): void {
    this.stopWatching?.();
    this.stopWatching = null;
    this.clearTimers();
    this.failedSend = null;
  }

  /** Re-reads the thread from the API (stored messages and the active turn). */
  async refresh(): Promise<void> {
    const chatId = this.state().chatId;
    if (!chatId) return;
    // Thread ids are UUIDs: anything else (a mistyped or truncated link) cannot be a thread.
    if (!THREAD_ID.test(chatId)) {
      this.patch({ loading: false, loadError: THREAD_MISSING });
      return;
    }
    try {
      const chat = await this.api.get(chatId);
      if (this.state().chatId !== chatId) return;
      this.state.update((s) => {
        let live = s.live;
        if (chat.activeTurn && (!live || (live.turnId !== chat.activeTurn.turnId && isTurnOver(live)))) {
          live = newLiveTurn(chatId, chat.activeTurn.turnId, { phase: chat.activeTurn.status });
        }
        return { ...s, chat, live, loading: false, loadError: null };
      });
      this.list.upsert(chat);
    } catch (err) {
      if (this.state().chatId !== chatId) return;
      if (this.state().chat) this.patch({ notice: describeHttpError(err) });
      else
        this.patch({
          loading: false,
          loadError:
            httpStatus(err) === 404 || httpStatus(err) === 400 ? THREAD_MISSING : describeHttpError(err),
        });
    }
  }

  /**
   * Posts a question. Returns `true` when the API accepted it (the caller then clears the draft);
   * `false` leaves the draft for another try. A retry of a failed POST reuses its
   * `clientMessageId`, so a request that did reach the API never makes a second turn.
   */
  async send(content: string): Promise<boolean> {
    const chatId = this.state().chatId;
    const text = content.trim();
    if (!chatId || !text || !this.canSend()) return false;
    if (!this.state().chat) {
      this.patch({ sending: true });
      await this.loaded;
      this.patch({ sending: false });
      if (this.state().chatId !== chatId || !this.canSend()) return false;
    }
    const clientMessageId =
      this.failedSend?.content === text ? this.failedSend.clientMessageId : newClientMessageId();
    this.patch({ sending: true, notice: null });
    try {
      const res = await this.api.postMessage(chatId, { content: text, clientMessageId });
      this.failedSend = null;
      if (this.state().chatId !== chatId) return true;
      this.state.update((s) => {
        const messages = s.chat?.messages ?? [];
        const userMessage: ChatMessageView = {
          id: res.messageId,
          turnId: res.turnId,
          role: 'user',
          content: text,
          status: 'complete',
          metadata: {},
          createdAt: new Date().toISOString(),
        };
        const chat =
          s.chat && !messages.some((m) => m.id === res.messageId)
            ? { ...s.chat, messages: [...messages, userMessage] }
            : s.chat;
        const live =
          s.live?.turnId === res.turnId
            ? s.live
            : newLiveTurn(chatId, res.turnId, { queuePosition: res.queuePosition });
        const notice = res.truncated
          ? $localize`:@@thread.truncated:Your message was longer than 100,000 characters: it was cut at a sentence boundary.`
          : null;
        return { ...s, chat, live, notice, sending: false };
      });
      // The first message names the thread and the turn counts: re-read header and list entry.
      void this.refresh();
      return true;
    } catch (err) {
      if (httpStatus(err) === 409) {
        this.patch({
          sending: false,
          notice: 'A turn is already running in this thread. Wait for it to finish or stop it.',
        });
        void this.refresh();
      } else {
        this.failedSend = { content: text, clientMessageId };
        this.patch({ sending: false, notice: describeHttpError(err) });
      }
      return false;
    }
  }

  /** Asks the API to stop the running turn; the turn ends with `turn.cancelled` and keeps its partial text. */
  async stop(): Promise<void> {
    const { chatId, live } = this.state();
    if (!chatId || !live || isTurnOver(live) || this.state().stopping) return;
    this.patch({ stopping: true, notice: null });
    try {
      await this.api.cancelTurn(chatId, live.turnId);
      if (this.stopTimer) clearTimeout(this.stopTimer);
      this.stopTimer = setTimeout(() => {
        this.stopTimer = null;
        if (this.state().stopping) void this.refresh().then(() => this.patch({ stopping: false }));
      }, STOP_CHECK_MS);
    } catch (err) {
      const status = httpStatus(err);
      this.patch({
        stopping: false,
        notice: status === 404 || status === 409 ? null : describeHttpError(err),
      });
      if (status === 404 || status === 409) void this.refresh();
    }
  }

  /** Sends the question of a failed or stopped turn again; the retry replaces it in `entries`. */
  retry(turnId: string): Promise<boolean> {
    const question = this.state().chat?.messages.find((m) => m.turnId === turnId && m.role === 'user');
    return question ? this.send(question.content) : Promise.resolve(false);
  }

  /**
   * Stores the operator's rating (and optional comment) of a finished answer. Resolves with null
   * when saved (the answer then shows it), or with the reason it was not.
   */
  async rate(turnId: string, rating: FeedbackRating, comment: string | null): Promise<string | null> {
    const chatId = this.state().chatId;
    if (!chatId) return null;
    return failureOf(async () => {
      const feedback = await this.api.putFeedback(chatId, turnId, { rating, comment });
      this.state.update((s) =>
        s.chatId !== chatId || !s.chat
          ? s
          : {
              ...s,
              chat: {
                ...s.chat,
                messages: s.chat.messages.map((m) =>
                  m.turnId === turnId && m.role === 'assistant' ? { ...m, feedback } : m,
                ),
              },
            },
      );
    });
  }

  dismissNotice(): void {
    this.patch({ notice: null });
  }

  /** Reduces one socket event of this thread into the live turn. */
  private applyEvent(event: ChatEvent): void {
    const { chatId, live } = this.state();
    if (!chatId || event.chatId !== chatId) return;
    this.lastEventSig.set({ turnId: event.turnId, seq: event.seq, type: event.type });
    if (this.isStored(event.turnId)) return;
    let current = live;
    if (!current || current.turnId !== event.turnId) {
      // A new turn (sent from this tab before the POST answered, or from another tab), or ours
      // was replaced (`ifBusy=interrupt` elsewhere): follow the newest one.
      if (current && !isTurnOver(current) && event.prev !== NO_SEQ) return;
      current = newLiveTurn(chatId, event.turnId);
    }
    const next = applyChatEvent(current, event);
    if (next === current && current === live) return;
    this.state.update((s) => ({ ...s, live: next }));
    if (hasGap(next)) this.scheduleGapRepair();
    if (isTurnOver(next) && !(live?.turnId === next.turnId && isTurnOver(live))) this.turnEnded();
  }

  private applyJoinAck(chatId: string, ack: JoinChatAck): void {
    if (this.state().chatId !== chatId) return;
    if (!ack.ok) {
      this.patch({
        notice: $localize`:@@thread.liveUnavailable:Live updates are unavailable for this thread: ${ack.error}:reason:`,
      });
      return;
    }
    const live = this.state().live;
    if (ack.activeTurn) {
      if (!live || (live.turnId !== ack.activeTurn.turnId && isTurnOver(live))) {
        this.patch({ live: newLiveTurn(chatId, ack.activeTurn.turnId, { phase: ack.activeTurn.status }) });
      }
    } else if (live && !isTurnOver(live) && !this.isStored(live.turnId)) {
      // The turn ended while this page was not listening: the stored answer has it.
      void this.refresh();
    }
  }

  private turnEnded(): void {
    this.clearTimers();
    this.patch({ stopping: false });
    void this.refresh();
  }

  private afterSeq(): string {
    const live = this.state().live;
    return live && !isTurnOver(live) ? live.lastSeq : NO_SEQ;
  }

  private scheduleGapRepair(): void {
    if (this.gapTimer) return;
    this.gapTimer = setTimeout(() => {
      this.gapTimer = null;
      const { chatId, live } = this.state();
      if (chatId && live && hasGap(live)) this.socket.rejoin(chatId);
    }, GAP_REPAIR_MS);
  }

  private isStored(turnId: string): boolean {
    return !!this.state().chat?.messages.some((m) => m.role === 'assistant' && m.turnId === turnId);
  }

  private clearTimers(): void {
    if (this.gapTimer) clearTimeout(this.gapTimer);
    if (this.stopTimer) clearTimeout(this.stopTimer);
    this.gapTimer = this.stopTimer = null;
  }

  private patch(change: Partial<ThreadState>): void {
    this.state.update((s) => ({ ...s, ...change }));
  }
}

/** Answer statuses a Retry is offered for. */
const RETRYABLE = new Set<ChatMessageView['status']>(['error', 'cancelled']);

/**
 * `messages` without each failed or stopped turn (its question and answer) that is followed at once
 * by the same question again: the retry stands in for it.
 */
export function withoutRetriedTurns(messages: readonly ChatMessageView[]): ChatMessageView[] {
  const replaced = new Set<string>();
  for (let i = 0; i + 2 < messages.length; i++) {
    const [question, answer, next] = [messages[i]!, messages[i + 1]!, messages[i + 2]!];
    if (
      question.role === 'user' &&
      answer.role === 'assistant' &&
      answer.turnId === question.turnId &&
      RETRYABLE.has(answer.status) &&
      next.role === 'user' &&
      next.content.trim() === question.content.trim()
    ) {
      replaced.add(question.turnId);
    }
  }
  return replaced.size ? messages.filter((m) => !replaced.has(m.turnId)) : [...messages];
}
