import { z } from 'zod';
import { optional } from '../validation/dto-fields';
import { zodDto } from '../validation/zod-dto';
import type { ActiveTurnView } from '../events/chat-events';
import type { ToolCallName, ToolCardData } from '../tools/tools';
import type { FindingFilter, GroupByKey, Severity } from '../corpus/corpus.types';
import type { TurnFeedbackView } from '../feedback/feedback.types';

/** Longest operator message kept; longer ones are cut at a sentence boundary and marked `[…truncated]`. */
export const MAX_MESSAGE_CHARS = 100_000;
export const TRUNCATION_MARK = '[…truncated]';
/** Longest thread title (auto titles are cut at a word boundary to 60). */
export const MAX_TITLE_CHARS = 200;
export const AUTO_TITLE_CHARS = 60;

/** `POST /api/chats` */
export class CreateChatDto extends zodDto(
  z.strictObject({ title: optional(z.string().max(MAX_TITLE_CHARS)) }),
) {}

/** `PATCH /api/chats/:id` */
export class UpdateChatDto extends zodDto(
  z.strictObject({
    title: z.string().min(1).max(MAX_TITLE_CHARS).optional(),
    archived: z.boolean().optional(),
  }),
) {}

/** `POST /api/chats/:id/messages`: non-blank `content`; past MAX_MESSAGE_CHARS it is cut, not refused. */
export class PostMessageDto extends zodDto(
  z.strictObject({
    content: z.string().regex(/\S/, { error: 'must not be blank' }),
    /** Client-generated id: a retried POST with the same id returns the same turn. */
    clientMessageId: optional(z.guid({ error: 'must be a UUID' })),
  }),
) {}

export const IF_BUSY_VALUES = ['reject', 'interrupt'] as const;
export class PostMessageQueryDto extends zodDto(
  z.strictObject({ ifBusy: z.enum(IF_BUSY_VALUES).optional() }),
) {}

export class ListChatsQueryDto extends zodDto(
  z.strictObject({ archived: z.enum(['true', 'false']).optional() }),
) {}

/** `202` answer to a posted message. */
export interface PostMessageResponse {
  turnId: string;
  messageId: string;
  queuePosition: number;
  truncated: boolean;
}

/**
 * Answer to a cancel: `cancelled` (was queued, now ended), `stopping` (worker signalled;
 * `turn.cancelled` follows), `finished` (had already ended).
 */
export interface CancelTurnResponse {
  turnId: string;
  state: 'cancelled' | 'stopping' | 'finished';
}

/** One tool call of a turn as stored in the assistant message's metadata. */
export interface StoredToolCall {
  callId: string;
  name: ToolCallName;
  args: unknown;
  ok: boolean;
  summary: string;
  data?: ToolCardData;
}

/** `chat_messages.metadata` of an assistant message. */
export interface AssistantMessageMetadata {
  toolCalls: StoredToolCall[];
  /** The filter of the last counting/search call, for follow-ups ("and how many of those are high?"). */
  lastFilter?: FindingFilter;
  /** The finding ids shown last, for "show the first one". */
  lastFindingIds?: number[];
  /** The groups a ranking or breakdown listed last, in order, for "show the second one" after "top 3 reports". */
  lastGroups?: ListedGroups;
  /** What the planner's last count combined on top of `lastFilter`, so a follow-up narrows the same set. */
  lastScope?: ComputedScope;
  model?: string;
  attempt?: number;
  error?: { code: string; message: string };
  /** The number provenance check of the answer's prose (absent on answers stored before it existed). */
  verification?: AnswerVerification;
  /**
   * The model's reasoning (`<think>` blocks, `reasoning_content` / `reasoning` deltas), never part
   * of `content` nor of later turns' history; at most `REASONING_MAX_CHARS` characters.
   */
  reasoning?: string;
  /** One entry per model request of the turn: the prompt and completion tokens the server reported. */
  modelRequests?: ModelRequestUsage[];
}

/** Characters of a turn's reasoning kept in its metadata (the start and the end when cut). */
export const REASONING_MAX_CHARS = 20_000;

/**
 * Numbers of an answer no tool result, operator message or exact arithmetic over those supports:
 * `checked` counts the answer's numbers, `unsupported` lists each once as written, in order.
 */
export interface AnswerVerification {
  checked: number;
  unsupported: string[];
  /** True when the model was asked once more because its first answer held unsupported numbers. */
  reasked?: boolean;
}

/** Token usage of one model request, as the server reported it (`usage` of the last chunk). */
export interface ModelRequestUsage {
  step: number;
  promptTokens?: number;
  completionTokens?: number;
}

/** Groups of a `count_findings_by` answer as listed (at most {@link LISTED_GROUPS_MAX}), most first. */
export interface ListedGroups {
  groupBy: GroupByKey;
  groups: { key: string; label: string }[];
}
/** Groups of a ranking kept for follow-ups: a list an operator reads, not a whole CWE table. */
export const LISTED_GROUPS_MAX = 20;

/** Parts of a count that no single tool filter expresses; the planner computes them from exact counts. */
export interface ComputedScope {
  /** Severities counted together (summed per-severity counts); the filter then has no `severity`. */
  severities?: Severity[];
  /** Findings that also match this filter are subtracted ("not about X", "excluding report R"). */
  exclude?: FindingFilter;
  /** Only findings with (`present`) or without any CWE id / any verdict. */
  has?: { key: 'cwe' | 'verdict'; present: boolean };
}

export type MessageRole = 'user' | 'assistant';
export type MessageStatus = 'complete' | 'cancelled' | 'error';

export interface ChatMessageView {
  id: string;
  turnId: string;
  role: MessageRole;
  content: string;
  status: MessageStatus;
  metadata: AssistantMessageMetadata | Record<string, never>;
  createdAt: string;
  /** On an assistant answer: the thread owner's feedback on its turn, when given. */
  feedback?: TurnFeedbackView | null;
}

export interface ChatSummaryView {
  id: string;
  title: string;
  archived: boolean;
  messageCount: number;
  lastModel: string | null;
  activeTurn: ActiveTurnView | null;
  /** True when the thread's newest answer is newer than the operator last saw the thread. */
  unread: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface ChatDetailView extends ChatSummaryView {
  messages: ChatMessageView[];
  /**
   * `unknown` when Redis did not answer just now: the stored messages are complete, but whether
   * the active turn is still streaming cannot be told (its live events come through Redis).
   */
  live?: 'unknown';
}
