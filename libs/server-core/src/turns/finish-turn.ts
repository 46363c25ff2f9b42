import type {
  AnswerVerification,
  AssistantMessageMetadata,
  ChatEventBody,
  TurnErrorCode,
} from '@corpus-chat/contracts';
import type { FinishTurnResult, TurnLedger, TurnOutcome } from '@corpus-chat/persistence';
import { queueTurnWebhooks, type WebhookQueue } from '../webhooks/webhook-jobs';
import type { TurnEventBus } from './turn-event-bus';

/** What a turn produced before it stopped: stored with a cancelled or failed answer. */
export interface PartialAnswer {
  content: string;
  metadata: AssistantMessageMetadata;
}

/** How a turn ends; each kind stores one answer status and publishes one terminal event. */
export type TurnEnding =
  /**
   * The answer is complete: stored `complete`, `turn.done` carries `metadata.verification`.
   * `claim`: the worker's run, stored only while it is the turn's current one (`TurnOutcome.claim`).
   */
  | {
      kind: 'done';
      content: string;
      metadata: AssistantMessageMetadata;
      model?: string | null;
      claim?: TurnOutcome['claim'];
    }
  /** Stopped by the operator (or a thread delete): the partial text is stored `cancelled`. */
  | { kind: 'cancelled'; partial?: PartialAnswer; claim?: TurnOutcome['claim'] }
  /**
   * Failed for good (last attempt, timeout, worker lost, Redis lost the job): the partial text is
   * stored `error` with `{code, message}` in its metadata. `storeMessage: false` stores no
   * assistant message (a job that does not match its thread must not write into it).
   */
  | {
      kind: 'error';
      code: TurnErrorCode;
      message: string;
      partial?: PartialAnswer;
      attempt?: number;
      storeMessage?: boolean;
    };

/** What `finishTurn` needs: the database side and the event side of a turn, and the webhook queue. */
export interface FinishTurnDeps {
  ledger: TurnLedger;
  bus: Pick<TurnEventBus, 'publish'>;
  webhooks: WebhookQueue;
}

/** `finishTurn`'s result: the ledger's, plus the terminal event when this call ended the turn. */
export type FinishTurnOutcome =
  | (Extract<FinishTurnResult, { kind: 'finished' }> & { event: ChatEventBody })
  | Exclude<FinishTurnResult, { kind: 'finished' }>;

/** The turn's outcome was stored, but its terminal event (or its webhook job) did not reach Redis. */
export class TerminalEventNotPublishedError extends Error {
  constructor(
    readonly turnId: string,
    readonly event: ChatEventBody,
    cause: unknown,
  ) {
    super(
      `turn ${turnId} ended but ${event.type} was not published (or its webhooks not queued): ${(cause as Error)?.message ?? String(cause)}`,
    );
    this.name = 'TerminalEventNotPublishedError';
  }
}

const emptyPartial = (): PartialAnswer => ({ content: '', metadata: { toolCalls: [] } });

/**
 * Ends turn `turnId`, whoever ends it: stores the outcome once (`TurnLedger.finish`) and, only when
 * this call ended it, publishes the terminal event and queues webhooks. An ended or deleted turn
 * changes nothing (`already` / `gone`). Rejects with `TerminalEventNotPublishedError` when the
 * outcome was stored but not published (a retried job re-publishes it).
 */
export async function finishTurn(
  deps: FinishTurnDeps,
  turnId: string,
  ending: TurnEnding,
): Promise<FinishTurnOutcome> {
  const stored = toStored(ending);
  const result = await deps.ledger.finish(turnId, stored);
  if (result.kind !== 'finished') return result;
  const event = terminalEventOfStored(stored.status, result.messageId, stored.metadata);
  try {
    await deps.bus.publish(result.chatId, turnId, event);
    // Only when an endpoint may want it: a job per turn would double a busy worker's queue work.
    if (result.webhooks) await queueTurnWebhooks(deps.webhooks, turnId);
  } catch (e) {
    throw new TerminalEventNotPublishedError(turnId, event, e);
  }
  return { ...result, event };
}

function toStored(ending: TurnEnding): TurnOutcome {
  switch (ending.kind) {
    case 'done':
      return {
        status: 'complete',
        content: ending.content,
        metadata: ending.metadata,
        model: ending.model ?? null,
        claim: ending.claim,
      };
    case 'cancelled': {
      const partial = ending.partial ?? emptyPartial();
      return {
        status: 'cancelled',
        content: partial.content,
        metadata: partial.metadata,
        claim: ending.claim,
      };
    }
    case 'error': {
      const partial = ending.partial ?? emptyPartial();
      const attempt = ending.attempt === undefined ? {} : { attempt: ending.attempt };
      return {
        status: 'error',
        content: partial.content,
        metadata: { ...partial.metadata, ...attempt, error: { code: ending.code, message: ending.message } },
        errorCode: ending.code,
        storeMessage: ending.storeMessage ?? true,
      };
    }
  }
}

/**
 * The terminal event of an answer already stored (`status`: its message status), for an attempt
 * that finds its turn answered by an earlier one that died before publishing.
 */
export function terminalEventOfStored(
  status: string,
  messageId: string,
  metadata: { error?: { code: string; message: string }; verification?: AnswerVerification } | object,
): ChatEventBody {
  if (status === 'complete') {
    const verification = (metadata as { verification?: AnswerVerification }).verification;
    return { type: 'turn.done', messageId, ...(verification ? { verification } : {}) };
  }
  if (status === 'cancelled') return { type: 'turn.cancelled', messageId };
  const error = (metadata as { error?: { code: TurnErrorCode; message: string } }).error;
  return {
    type: 'turn.error',
    code: error?.code ?? 'INTERNAL',
    message: error?.message ?? 'The turn failed.',
  };
}
