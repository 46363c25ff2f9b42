import type { AnswerVerification } from '../chat/chat.dto';
import type { ToolCallName, ToolCardData } from '../tools/tools';

/**
 * Turn progress on the wire: worker → Redis (pub/sub and a per-turn Stream) → API → Socket.IO
 * `chat:event` → web client. `seq` is the Stream entry id and `prev` the one before (`NO_SEQ` for
 * the first): a client drops seqs it has and, on a `prev` it has not seen, asks for the rest.
 */
export interface ChatEventBase {
  chatId: string;
  turnId: string;
  seq: string;
  prev: string;
  at: string;
}

/** The `prev` of a turn's first event, below every seq. */
export const NO_SEQ = '0-0';

/** Orders two seqs (stream entry ids) as Redis does: negative, zero or positive. */
export function compareSeq(a: string, b: string): number {
  const [aMs, aN] = a.split('-').map(Number);
  const [bMs, bN] = b.split('-').map(Number);
  return aMs - bMs || (aN ?? 0) - (bN ?? 0);
}

export type TurnErrorCode =
  | 'MODEL_UNAVAILABLE'
  | 'MODEL_ERROR'
  | 'TOOL_ERROR'
  | 'STEP_LIMIT'
  | 'CONTEXT_OVERFLOW'
  | 'TIMEOUT'
  | 'WORKER_LOST'
  | 'FORBIDDEN'
  | 'INTERNAL';

export type TurnProgressPhase = 'prompt' | 'reasoning' | 'answer';

export type ChatEventBody =
  /**
   * The turn's place in line (1 = next). `modelSlot`: a started turn waits for a free request slot
   * at its model server (`MODEL_MAX_CONCURRENT`) rather than for a worker; it runs again with its
   * next `turn.progress`.
   */
  | { type: 'turn.queued'; position: number; modelSlot?: true }
  | { type: 'turn.started'; workerId: string; attempt: number }
  | { type: 'text.delta'; text: string }
  /**
   * Cuts the streamed answer back to `length` UTF-16 units: what followed was reasoning, a call
   * written as text, or an answer to be rewritten (`reason`).
   */
  | { type: 'text.reset'; length: number; reason: 'reasoning' | 'tool_call' | 'reask' }
  | { type: 'tool.call'; callId: string; name: ToolCallName; args: unknown }
  | {
      type: 'tool.result';
      callId: string;
      name: ToolCallName;
      ok: boolean;
      summary: string;
      data?: ToolCardData;
    }
  /**
   * What the model is doing, about once a second: tokens streamed so far (one per chunk), their
   * rate, and the phase (`prompt` from llama.cpp's `prompt_progress`, `reasoning`, `answer`).
   */
  | {
      type: 'turn.progress';
      model: string;
      phase: TurnProgressPhase;
      tokens: number;
      tokensPerSecond: number | null;
      prompt?: { processed: number; total: number };
    }
  | { type: 'turn.done'; messageId: string; verification?: AnswerVerification }
  | { type: 'turn.error'; code: TurnErrorCode; message: string }
  | { type: 'turn.cancelled'; messageId: string };

export type ChatEvent = ChatEventBase & ChatEventBody;
export type ChatEventType = ChatEvent['type'];
/** Extracts one event kind: `ChatEventOf<'text.delta'>`. */
export type ChatEventOf<T extends ChatEventType> = Extract<ChatEvent, { type: T }>;

/** Event kinds that end a turn. */
export const TERMINAL_EVENT_TYPES: readonly ChatEventType[] = ['turn.done', 'turn.error', 'turn.cancelled'];
export const isTerminalEvent = (e: Pick<ChatEvent, 'type'>): boolean => TERMINAL_EVENT_TYPES.includes(e.type);

/**
 * Event kinds also sent to every page of the thread's owner as `chat:activity`, whichever thread
 * the page follows: a turn's place in the queue, its start, its progress and its end.
 */
export const ACTIVITY_EVENT_TYPES: readonly ChatEventType[] = [
  'turn.queued',
  'turn.started',
  'turn.progress',
  ...TERMINAL_EVENT_TYPES,
];

/** Socket.IO namespace and event names (client ↔ API gateway). */
export const CHAT_NAMESPACE = '/chat';
/** `connect_error` messages of a refused `/chat` handshake: sign in again, or try again later. */
export const SocketRefusals = { unauthorized: 'unauthorized', unavailable: 'unavailable' } as const;
export const SocketEvents = {
  /** client → server: `{ chatId, afterSeq? }` (a seq; none: the whole turn), ack `{ ok: true, activeTurn } | { ok: false, error }`. */
  join: 'chat:join',
  /** client → server: `{ chatId }`. */
  leave: 'chat:leave',
  /** client → server: `{ chatId, turnId }`, ack `{ ok }`. */
  cancel: 'chat:cancel',
  /** server → client: a `ChatEvent`. */
  event: 'chat:event',
  /**
   * server → every page of the thread's owner: `ThreadUpdated` when a thread's list entry changed
   * (title, archive, seen, deleted: `thread` null).
   */
  threadUpdated: 'chat:thread-updated',
  /** server → every page of the turn's owner: a `TurnActivity`. */
  activity: 'chat:activity',
} as const;

export interface JoinChatPayload {
  chatId: string;
  afterSeq?: string;
}
export type JoinChatAck = { ok: true; activeTurn: ActiveTurnView | null } | { ok: false; error: string };

/** A turn still queued or running in a thread. */
export interface ActiveTurnView {
  turnId: string;
  status: 'queued' | 'running';
}
