import { Injectable } from '@nestjs/common';
import {
  type ChatEvent,
  type ChatSummaryView,
  isTerminalEvent,
  type RunningTurnView,
  type TurnActivity,
} from '@corpus-chat/contracts';
import {
  ChatRepository,
  estimateStartMs,
  type QueueTiming,
  TurnActivityQueries,
} from '@corpus-chat/persistence';
import { toChatSummaryView } from './chat-views';

/** What an operator's pages learn about turns outside the open thread: unread, running, queued. */
@Injectable()
export class TurnActivityService {
  constructor(
    private readonly queries: TurnActivityQueries,
    private readonly chats: ChatRepository,
  ) {}

  /** Marks the thread seen now; false when it is not the operator's. */
  markSeen(ownerId: string, chatId: string): Promise<boolean> {
    return this.queries.markSeen(ownerId, chatId);
  }

  /** The thread's list entry, or null when it is gone (or not the operator's). */
  async summary(ownerId: string, chatId: string): Promise<ChatSummaryView | null> {
    const row = await this.chats.getChatSummary(ownerId, chatId);
    return row && toChatSummaryView(row);
  }

  /** `GET /api/chats/turns/active`: the operator's queued and running turns, oldest first. */
  async activeTurns(ownerId: string): Promise<RunningTurnView[]> {
    const rows = await this.queries.activeTurns(ownerId);
    if (!rows.length) return [];
    const timing = await this.queries.queueTiming();
    return rows.map((r) => ({
      turnId: r.turnId,
      chatId: r.chatId,
      title: r.title,
      status: r.status,
      queuePosition: r.status === 'queued' ? r.queuePosition : null,
      createdAt: r.createdAt.toISOString(),
      startedAt: r.startedAt?.toISOString() ?? null,
      model: timing.model,
      estimatedStartAt: r.status === 'queued' ? estimatedStart(r.queuePosition, timing) : null,
    }));
  }

  /**
   * The owner of the event's thread and what their pages are sent; null when the thread is gone or
   * `wanted(owner)` says no page of the owner is here to receive it.
   */
  async activityOf(
    event: ChatEvent,
    wanted: (ownerId: string) => boolean,
  ): Promise<{ ownerId: string; activity: TurnActivity } | null> {
    const ownerId = await this.queries.ownerOf(event.chatId);
    if (!ownerId || !wanted(ownerId)) return null;
    if (event.type === 'turn.progress') return { ownerId, activity: { event } };
    const thread = await this.summary(ownerId, event.chatId);
    if (!thread) return null;
    const activity: TurnActivity = { event, thread };
    // The start estimate is from the turn queue's timing; a wait for a model slot has none.
    if (event.type === 'turn.queued' && !event.modelSlot)
      activity.estimatedStartAt = estimatedStart(event.position, await this.queries.queueTiming());
    if (isTerminalEvent(event)) {
      const stored = 'messageId' in event ? await this.queries.answerFirstLine(event.messageId) : null;
      const line = stored ?? (event.type === 'turn.error' ? event.message.split('\n')[0] : null);
      if (line) activity.firstLine = line.slice(0, 200);
    }
    return { ownerId, activity };
  }
}

function estimatedStart(position: number, timing: QueueTiming): string | null {
  if (timing.typicalMs === null) return null;
  const ms = estimateStartMs(position, timing.runningElapsedMs, timing.typicalMs);
  return new Date(Date.now() + ms).toISOString();
}
