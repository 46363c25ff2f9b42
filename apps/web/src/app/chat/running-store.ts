import { DestroyRef, Injectable, computed, effect, inject, signal, untracked } from '@angular/core';
import { isTerminalEvent, type RunningTurnView, type TurnActivity } from '@corpus-chat/contracts';
import { ChatApi } from './chat-api';
import { ChatSocket } from './chat-socket';
import type { TurnProgress } from './turn-state';

/** One of the operator's queued or running turns, with what the model reported last. */
export interface RunningTurn extends RunningTurnView {
  progress: TurnProgress | null;
  stopping: boolean;
}

/**
 * The operator's queued and running turns across threads (the Running panel): read when the socket
 * connects (and again after each reconnect), then kept current by `chat:activity` (queue place,
 * start, progress, end). Stop uses the same cancel request as Stop in the thread.
 */
@Injectable({ providedIn: 'root' })
export class RunningStore {
  private readonly api = inject(ChatApi);
  private readonly turnsSig = signal<RunningTurn[]>([]);
  /** Turns whose end arrived: a late event must not bring them back. */
  private readonly ended = new Set<string>();
  /** Oldest first. */
  readonly turns = this.turnsSig.asReadonly();
  readonly count = computed(() => this.turnsSig().length);

  constructor() {
    const socket = inject(ChatSocket);
    const off = socket.onActivity((a) => this.apply(a));
    effect(() => {
      if (socket.state() === 'connected') untracked(() => void this.load());
    });
    inject(DestroyRef).onDestroy(off);
  }

  async load(): Promise<void> {
    try {
      const views = await this.api.activeTurns();
      const known = new Map(this.turnsSig().map((t) => [t.turnId, t]));
      this.turnsSig.set(
        views.map((v) => ({ ...v, progress: known.get(v.turnId)?.progress ?? null, stopping: false })),
      );
    } catch {
      // The panel keeps what it has; the next activity or reconnect brings it up to date.
    }
  }

  /** Stops a turn (the model request is closed by its worker); it leaves the list with its end event. */
  async stop(turn: RunningTurn): Promise<void> {
    this.patch(turn.turnId, { stopping: true });
    try {
      await this.api.cancelTurn(turn.chatId, turn.turnId);
    } catch {
      this.patch(turn.turnId, { stopping: false });
    }
  }

  private apply({ event, thread, estimatedStartAt }: TurnActivity): void {
    if (this.ended.has(event.turnId)) return;
    if (isTerminalEvent(event)) {
      this.ended.add(event.turnId);
      this.turnsSig.update((list) => list.filter((t) => t.turnId !== event.turnId));
      return;
    }
    const existing = this.turnsSig().find((t) => t.turnId === event.turnId);
    const base: RunningTurn = existing ?? {
      turnId: event.turnId,
      chatId: event.chatId,
      title: thread?.title ?? '',
      status: 'queued',
      queuePosition: null,
      createdAt: event.at,
      startedAt: null,
      model: '',
      estimatedStartAt: null,
      progress: null,
      stopping: false,
    };
    let next: RunningTurn = { ...base, title: thread?.title ?? base.title };
    if (event.type === 'turn.queued') {
      const status = event.modelSlot ? 'queued' : next.status;
      next = { ...next, status, queuePosition: event.position, estimatedStartAt: estimatedStartAt ?? null };
    } else if (event.type === 'turn.started')
      next = { ...next, status: 'running', queuePosition: null, estimatedStartAt: null, startedAt: event.at };
    else if (event.type === 'turn.progress') {
      const { model, phase, tokens, tokensPerSecond, prompt } = event;
      next = {
        ...next,
        status: 'running',
        queuePosition: null,
        model,
        progress: { model, phase, tokens, tokensPerSecond, prompt },
      };
    }
    this.turnsSig.update((list) =>
      existing ? list.map((t) => (t.turnId === next.turnId ? next : t)) : [...list, next],
    );
  }

  private patch(turnId: string, change: Partial<RunningTurn>): void {
    this.turnsSig.update((list) => list.map((t) => (t.turnId === turnId ? { ...t, ...change } : t)));
  }
}
