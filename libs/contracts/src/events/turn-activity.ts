import type { ChatSummaryView } from '../chat/chat.dto';
import type { ChatEvent } from './chat-events';

/**
 * `chat:activity`: one of an operator's turns was queued, moved in the queue, started, made
 * progress or ended (an event of `ACTIVITY_EVENT_TYPES`), sent to all the operator's pages.
 */
export interface TurnActivity {
  event: ChatEvent;
  /** The thread's list entry after the event (on every kind but `turn.progress`). */
  thread?: ChatSummaryView;
  /** On a terminal event: the first line of the stored answer (or of the error message). */
  firstLine?: string;
  /** On `turn.queued`: the estimated start (see `RunningTurnView.estimatedStartAt`). */
  estimatedStartAt?: string | null;
}

/** `chat:thread-updated`: a thread's list entry changed; `thread` is null when it was deleted. */
export interface ThreadUpdated {
  chatId: string;
  thread: ChatSummaryView | null;
}

/** `GET /api/chats/turns/active`: one of the operator's queued or running turns. */
export interface RunningTurnView {
  turnId: string;
  chatId: string;
  title: string;
  status: 'queued' | 'running';
  /** Place in the queue (1 = next) while queued; null once running. */
  queuePosition: number | null;
  createdAt: string;
  startedAt: string | null;
  /** The model the turn runs (or will run) on: the current setting (`builtin` for the planner). */
  model: string;
  /**
   * While queued: an estimate of its start (ISO-8601), from the measured durations of the last
   * turns on the same model and the turns ahead of it; null without such measurements.
   */
  estimatedStartAt: string | null;
}
