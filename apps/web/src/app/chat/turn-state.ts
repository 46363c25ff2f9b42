import {
  compareSeq,
  NO_SEQ,
  type AnswerVerification,
  type ChatEvent,
  type ChatEventBase,
  type ChatEventOf,
  type ChatMessageView,
  type StoredToolCall,
  type ToolCallName,
  type ToolCardData,
  type TurnErrorCode,
} from '@corpus-chat/contracts';

/** A tool call as the UI shows it: running (spinner), ok (check) or failed (cross). */
export interface ToolCallView {
  callId: string;
  /** A corpus tool, or a name the model invented (shown as an unknown tool, always failed). */
  name: ToolCallName;
  args: unknown;
  state: 'running' | 'ok' | 'failed';
  /** One-line human summary from `tool.result`; `null` while running. */
  summary: string | null;
  data?: ToolCardData;
  /** When the worker started the call (`at` of its `tool.call` event); absent for stored calls. */
  startedAt?: string;
}

/** The content of an assistant answer in the order it arrived: prose and tool cards interleaved. */
export type TurnPart = { kind: 'text'; text: string } | { kind: 'tool'; call: ToolCallView };

export type TurnPhase = 'queued' | 'running' | 'done' | 'error' | 'cancelled';

/** A turn being followed live from its `ChatEvent`s (see `applyChatEvent`). */
export interface LiveTurn {
  chatId: string;
  turnId: string;
  /** Seq (stream entry id) of the last event applied; events at or below it are duplicates. */
  lastSeq: string;
  phase: TurnPhase;
  /** Queue position from `turn.queued` (1 = next), while queued. */
  queuePosition: number | null;
  /** Attempt number from `turn.started`; > 1 when a worker died and another restarted the turn. */
  attempt: number;
  parts: TurnPart[];
  error: { code: TurnErrorCode; message: string } | null;
  /** The assistant message id from `turn.done` / `turn.cancelled`. */
  messageId: string | null;
  /** The number check of the answer from `turn.done`; `null` before it or when the worker sent none. */
  verification: AnswerVerification | null;
  /** Highest seq dropped because an event before it was missing (see `hasGap`). */
  missedSeq: string | null;
  /** When the last event was published (`at`): a long silence shows as "waiting for the model". */
  lastEventAt: string | null;
  /** What the model is doing, from the last `turn.progress`. */
  progress: TurnProgress | null;
}

/** A `turn.progress` event without its envelope. */
export type TurnProgress = Omit<ChatEventOf<'turn.progress'>, keyof ChatEventBase | 'type'>;

/** A fresh turn, before any of its events arrived (e.g. right after `POST …/messages`). */
export function newLiveTurn(
  chatId: string,
  turnId: string,
  init: { phase?: 'queued' | 'running'; queuePosition?: number | null } = {},
): LiveTurn {
  return {
    chatId,
    turnId,
    lastSeq: NO_SEQ,
    phase: init.phase ?? 'queued',
    queuePosition: init.queuePosition ?? null,
    attempt: 1,
    parts: [],
    error: null,
    messageId: null,
    verification: null,
    missedSeq: null,
    lastEventAt: null,
    progress: null,
  };
}

/** True once `turn.done`, `turn.error` or `turn.cancelled` was applied. */
export function isTurnOver(turn: Pick<LiveTurn, 'phase'>): boolean {
  return turn.phase === 'done' || turn.phase === 'error' || turn.phase === 'cancelled';
}

/** The prose of a turn so far (all text parts joined). */
export function turnText(turn: Pick<LiveTurn, 'parts'>): string {
  return turn.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');
}

/**
 * Reduces one socket event into the turn, pure and idempotent: other turns' events and seqs at or
 * below `lastSeq` change nothing; an event whose `prev` is missing is dropped into `missedSeq` for a
 * replay (a `prev` below `lastSeq` means Redis restarted the stream: applied); a retry attempt drops
 * the partial answer; nothing changes after a terminal event.
 */
export function applyChatEvent(turn: LiveTurn, event: ChatEvent): LiveTurn {
  if (event.turnId !== turn.turnId || compareSeq(event.seq, turn.lastSeq) <= 0 || isTurnOver(turn))
    return turn;
  if (compareSeq(event.prev, turn.lastSeq) > 0) return { ...turn, missedSeq: event.seq };
  return applyInOrder(turn, event);
}

/** True when an event was dropped behind a missing one (the caller should ask for a replay). */
export function hasGap(turn: LiveTurn): boolean {
  return turn.missedSeq !== null && compareSeq(turn.missedSeq, turn.lastSeq) > 0;
}

function applyInOrder(turn: LiveTurn, event: ChatEvent): LiveTurn {
  const t: LiveTurn = { ...turn, lastSeq: event.seq, lastEventAt: event.at };
  switch (event.type) {
    case 'turn.progress': {
      const { model, phase, tokens, tokensPerSecond, prompt } = event;
      const progress = { model, phase, tokens, tokensPerSecond, ...(prompt ? { prompt } : {}) };
      return { ...t, phase: 'running', queuePosition: null, progress };
    }
    case 'turn.queued':
      // A running turn is queued again only while it waits for a model slot (a late queue-place
      // event is not that).
      return t.phase === 'queued' || event.modelSlot
        ? { ...t, phase: 'queued', queuePosition: event.position }
        : t;
    case 'turn.started':
      return {
        ...t,
        phase: 'running',
        queuePosition: null,
        attempt: event.attempt,
        parts: event.attempt > 1 || event.attempt !== turn.attempt ? [] : t.parts,
      };
    case 'text.delta': {
      const parts = [...t.parts];
      const last = parts[parts.length - 1];
      if (last?.kind === 'text') parts[parts.length - 1] = { kind: 'text', text: last.text + event.text };
      else parts.push({ kind: 'text', text: event.text });
      return { ...t, phase: 'running', queuePosition: null, parts };
    }
    case 'text.reset':
      return { ...t, parts: cutText(t.parts, event.length) };
    case 'tool.call':
      return {
        ...t,
        phase: 'running',
        queuePosition: null,
        parts: [
          ...t.parts,
          {
            kind: 'tool',
            call: {
              callId: event.callId,
              name: event.name,
              args: event.args,
              state: 'running',
              summary: null,
              startedAt: event.at,
            },
          },
        ],
      };
    case 'tool.result': {
      const result = { state: event.ok ? 'ok' : 'failed', summary: event.summary, data: event.data } as const;
      const index = t.parts.findIndex((p) => p.kind === 'tool' && p.call.callId === event.callId);
      if (index < 0) {
        return {
          ...t,
          parts: [
            ...t.parts,
            { kind: 'tool', call: { callId: event.callId, name: event.name, args: undefined, ...result } },
          ],
        };
      }
      const parts = [...t.parts];
      const part = parts[index] as Extract<TurnPart, { kind: 'tool' }>;
      parts[index] = { kind: 'tool', call: { ...part.call, ...result } };
      return { ...t, parts };
    }
    case 'turn.done':
      return {
        ...t,
        phase: 'done',
        messageId: event.messageId,
        verification: event.verification ?? null,
        parts: settleTools(t.parts),
      };
    case 'turn.cancelled':
      return { ...t, phase: 'cancelled', messageId: event.messageId, parts: settleTools(t.parts) };
    case 'turn.error':
      return {
        ...t,
        phase: 'error',
        error: { code: event.code, message: event.message },
        parts: settleTools(t.parts),
      };
  }
}

/** The parts with their prose cut to `length` (as `text.reset` counts); cards stay, emptied text goes. */
function cutText(parts: TurnPart[], length: number): TurnPart[] {
  let left = length;
  const kept: TurnPart[] = [];
  for (const p of parts) {
    if (p.kind === 'tool') kept.push(p);
    else if (left > 0) {
      kept.push(p.text.length <= left ? p : { kind: 'text', text: p.text.slice(0, left) });
      left -= Math.min(left, p.text.length);
    }
  }
  return kept;
}

/** A turn that ended leaves no spinner behind: tool calls still running are marked failed. */
function settleTools(parts: TurnPart[]): TurnPart[] {
  return parts.map((p) =>
    p.kind === 'tool' && p.call.state === 'running'
      ? { kind: 'tool', call: { ...p.call, state: 'failed' } }
      : p,
  );
}

/** The parts of a persisted assistant message: its stored tool calls, then its prose. */
export function partsOfMessage(message: ChatMessageView): TurnPart[] {
  const toolCalls: StoredToolCall[] =
    'toolCalls' in message.metadata && Array.isArray(message.metadata.toolCalls)
      ? message.metadata.toolCalls
      : [];
  const parts: TurnPart[] = toolCalls.map((c) => ({
    kind: 'tool',
    call: {
      callId: c.callId,
      name: c.name,
      args: c.args,
      state: c.ok ? 'ok' : 'failed',
      summary: c.summary,
      data: c.data,
    },
  }));
  if (message.content) parts.push({ kind: 'text', text: message.content });
  return parts;
}

/** The stored number check of an assistant message; `null` when it has none (planner, older answers). */
export function verificationOfMessage(message: ChatMessageView): AnswerVerification | null {
  const v = 'verification' in message.metadata ? message.metadata.verification : undefined;
  return v && Array.isArray(v.unsupported) ? v : null;
}

/** The stored reasoning of an assistant message; `null` when it has none or only whitespace. */
export function reasoningOfMessage(message: ChatMessageView): string | null {
  const r = 'reasoning' in message.metadata ? message.metadata.reasoning : undefined;
  return typeof r === 'string' && r.trim() ? r : null;
}
