import type {
  AssistantMessageMetadata,
  ChatEventBody,
  MessageRole,
  OperatorLanguage,
  TurnAttachment,
} from '@corpus-chat/contracts';

/** One stored message as history, oldest first, with only the follow-up state of its metadata. */
export interface HistoryMessage {
  role: MessageRole;
  content: string;
  status: 'complete' | 'cancelled' | 'error';
  metadata: Pick<AssistantMessageMetadata, 'lastFilter' | 'lastFindingIds' | 'lastScope' | 'lastGroups'>;
}

/**
 * Events a runner may emit (`turn.queued` only while it waits for a model slot); the pipeline itself
 * emits turn.queued/started/done/error/cancelled.
 */
export type RunnerEvent = Extract<
  ChatEventBody,
  { type: 'text.delta' | 'text.reset' | 'tool.call' | 'tool.result' | 'turn.progress' | 'turn.queued' }
>;

/** What one turn hands the agent. */
export interface AgentTurnContext {
  chatId: string;
  turnId: string;
  ownerId: string;
  /** Prior messages of the thread, oldest first (the new user message is not included). */
  history: HistoryMessage[];
  /** The operator's new message. */
  userMessage: string;
  /** The language to answer in (the operator's when the question was asked); `en` when absent. */
  language?: OperatorLanguage;
  /** The file attached to the thread before this message (its report scopes "this file", "it"). */
  attachment?: TurnAttachment | null;
  /** Aborted on cancel, timeout or shutdown: stop the model request and the tool loop. */
  signal: AbortSignal;
  /** Publishes one event (seq and timestamps are added by the pipeline); resolves once it is published in order. */
  emit(event: RunnerEvent): Promise<void>;
}

/** What a finished turn produced: the assistant's prose and the metadata stored with it. */
export interface AgentTurnOutcome {
  content: string;
  metadata: AssistantMessageMetadata;
}

/**
 * Thrown by a runner to end a turn with a `turn.error` whose message a person understands.
 * `retryable` errors (a model server that refused the connection) let BullMQ try the job again.
 */
export class AgentTurnError extends Error {
  constructor(
    readonly code: import('@corpus-chat/contracts').TurnErrorCode,
    message: string,
    readonly retryable = false,
  ) {
    super(message);
    this.name = 'AgentTurnError';
  }
}

/**
 * Runs one turn: emits text deltas and tool events, returns the final answer. On `ctx.signal`
 * abort it must throw promptly; the pipeline then stores the streamed text as `cancelled`.
 */
export interface AgentRunner {
  run(ctx: AgentTurnContext): Promise<AgentTurnOutcome>;
  /**
   * The most history messages this runner can use (the latest ones); the pipeline loads no more.
   * Unset: the whole thread.
   */
  readonly historyLimit?: number;
  /**
   * Does once, at start, what the first turn would otherwise pay for (compiled code paths, caches,
   * data loaded on first use), writing nothing; the worker takes no job before it resolves.
   */
  warmUp?(): Promise<void>;
}

/** Nest injection token for the AgentRunner the worker uses. */
export const AGENT_RUNNER = Symbol('AGENT_RUNNER');
