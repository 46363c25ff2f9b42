import type { AssistantMessageMetadata, MessageStatus } from '@corpus-chat/contracts';
import { type DataSource, In, Not } from 'typeorm';
import { ChatMessageEntity } from './chat-message.entity';
import { ChatSessionEntity } from './chat-session.entity';
import { ACTIVE_TURN_STATUSES, ChatTurnEntity, type TurnStatus } from './chat-turn.entity';

/** What a worker loads to run a turn. */
export interface TurnForRun {
  turn: ChatTurnEntity;
  chat: ChatSessionEntity;
  /** The operator's message of this turn. */
  userMessage: ChatMessageEntity;
}

/** How a turn ended, as stored. */
export interface TurnOutcome {
  status: MessageStatus;
  /** The assistant's prose (partial text for `cancelled`/`error`). */
  content: string;
  metadata: AssistantMessageMetadata | Record<string, never>;
  /** `TurnErrorCode` for `error`. */
  errorCode?: string | null;
  /** Model that answered (kept as the thread's `last_model`). */
  model?: string | null;
  /** False: end the turn without an assistant message (a job whose owner does not match the thread). */
  storeMessage?: boolean;
}

export type FinishTurnResult =
  /** This call ended the turn; `messageId` is the stored assistant message ('' when none stored). */
  | { kind: 'finished'; chatId: string; messageId: string }
  /** The turn had already ended (an earlier attempt or a cancel): nothing changed. */
  | { kind: 'already'; chatId: string; messageId: string | null; status: TurnStatus }
  /** The turn no longer exists (its thread was deleted). */
  | { kind: 'gone' };

/**
 * A turn's lifecycle by turn id, for the pipeline (the worker, and the API after it checked the
 * operator owns the thread). Turn ids come from job data or owner-scoped lookups, never from a
 * client directly.
 */
export class TurnLedger {
  constructor(private readonly db: DataSource) {}

  /** The turn with its thread and user message, or null (never committed, or thread deleted). */
  async findForRun(turnId: string): Promise<TurnForRun | null> {
    // The three reads run at once (one round trip of waiting instead of two): the thread is found
    // through the turn's chat_id in the same statement.
    const [turn, chat, userMessage] = await Promise.all([
      this.db.getRepository(ChatTurnEntity).findOneBy({ id: turnId }),
      this.db
        .getRepository(ChatSessionEntity)
        .createQueryBuilder('c')
        .where('c.id = (SELECT t.chat_id FROM chat_turns t WHERE t.id = :turnId)', { turnId })
        .getOne(),
      this.db.getRepository(ChatMessageEntity).findOneBy({ turnId, role: 'user' }),
    ]);
    return turn && chat && userMessage ? { turn, chat, userMessage } : null;
  }

  /** The turn's status, or null when it does not exist. */
  async status(turnId: string): Promise<TurnStatus | null> {
    const row = await this.db
      .getRepository(ChatTurnEntity)
      .findOne({ where: { id: turnId }, select: { id: true, status: true } });
    return row?.status ?? null;
  }

  /** The thread's messages before this turn, oldest first: the agent's history. */
  async history(chatId: string, turnId: string): Promise<ChatMessageEntity[]> {
    return this.db.getRepository(ChatMessageEntity).find({
      where: { chatId, turnId: Not(turnId) },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
  }

  /** The turn's assistant message, or null while it has none. */
  async assistantMessage(turnId: string): Promise<ChatMessageEntity | null> {
    return this.db.getRepository(ChatMessageEntity).findOneBy({ turnId, role: 'assistant' });
  }

  /**
   * Marks a queued or running turn as running attempt `attempt` on `workerId`. Returns false (and
   * changes nothing) when the turn already ended or is gone: the caller must not run it.
   */
  async markRunning(turnId: string, attempt: number, workerId: string): Promise<boolean> {
    const result = await this.db
      .createQueryBuilder()
      .update(ChatTurnEntity)
      .set({ status: 'running', attempt, workerId, startedAt: () => 'COALESCE(started_at, now())' })
      .where('id = :turnId AND status IN (:...statuses)', { turnId, statuses: ACTIVE_TURN_STATUSES })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /**
   * Ends a turn once: in one transaction (the turn row locked) stores the assistant message and
   * sets the turn's final status. A second call for the same turn — a retried job, a cancel racing
   * the worker — finds it ended and changes nothing (`already`); the unique assistant message per
   * turn backs this up.
   */
  async finish(turnId: string, outcome: TurnOutcome): Promise<FinishTurnResult> {
    return this.db.transaction(async (m) => {
      // The turn (locked) and its assistant message if one exists, in one statement.
      const [turn]: { chat_id: string; status: TurnStatus; message_id: string | null }[] = await m.query(
        `SELECT t.chat_id, t.status, a.id AS message_id
           FROM chat_turns t
           LEFT JOIN chat_messages a ON a.turn_id = t.id AND a.role = 'assistant'
          WHERE t.id = $1
            FOR UPDATE OF t`,
        [turnId],
      );
      if (!turn) return { kind: 'gone' } as const;
      if (turn.message_id || !ACTIVE_TURN_STATUSES.includes(turn.status)) {
        return { kind: 'already', chatId: turn.chat_id, messageId: turn.message_id, status: turn.status } as const;
      }
      let messageId = '';
      if (outcome.storeMessage !== false) {
        const repo = m.getRepository(ChatMessageEntity);
        const message = repo.create({
          chatId: turn.chat_id,
          turnId,
          role: 'assistant',
          content: outcome.content,
          status: outcome.status,
        });
        message.metadata = outcome.metadata;
        messageId = (await repo.save(message)).id;
      }
      const finalStatus: TurnStatus = outcome.status;
      // The turn's final status and the thread's updated_at (and last model) in one statement.
      await m.query(
        `WITH ended AS (
           UPDATE chat_turns SET status = $2, finished_at = $3, error_code = $4 WHERE id = $1 RETURNING chat_id
         )
         UPDATE chat_sessions SET updated_at = now(), last_model = COALESCE($5, last_model)
          WHERE id = (SELECT chat_id FROM ended)`,
        [turnId, finalStatus, new Date(), outcome.errorCode ?? null, outcome.model || null],
      );
      return { kind: 'finished', chatId: turn.chat_id, messageId } as const;
    });
  }

  /** Turns in `turnIds` that are still queued or running (for waits after a cancel). */
  async stillActive(turnIds: string[]): Promise<string[]> {
    if (!turnIds.length) return [];
    const rows = await this.db
      .getRepository(ChatTurnEntity)
      .find({ where: { id: In(turnIds), status: In([...ACTIVE_TURN_STATUSES]) }, select: { id: true } });
    return rows.map((r) => r.id);
  }
}
