import type { AssistantMessageMetadata, MessageStatus, TurnAttachment } from '@corpus-chat/contracts';
import { type DataSource, In } from 'typeorm';
import { findTurnAttachment } from './turn-attachment';
import { ChatMessageEntity } from './chat-message.entity';
import { ACTIVE_TURN_STATUSES, ChatTurnEntity, type TurnStatus } from './chat-turn.entity';
import { storableJson, storableText } from './storable';
import { GenerateSql, SQL_EXAMPLE as X } from '../sql/generate-sql';

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
  /**
   * The run that produced it (`TurnRunClaim`'s attempt and worker): stored only while that run is
   * still the turn's current claim, so a worker whose job another worker took over (a stalled
   * loop lost its lock) cannot end the turn the new run is answering.
   */
  claim?: Pick<TurnRunClaim, 'attempt' | 'workerId'>;
}

/** What the job that runs a turn says about it: checked against the stored turn before it is marked running. */
export interface TurnRunClaim {
  /** The attempt (1, 2, …) and the worker's id, stored on the turn when it is marked running. */
  attempt: number;
  workerId: string;
  /** The job's owner, thread and user message; a turn that does not match is not marked running. */
  ownerId: string;
  chatId: string;
  userMessageId: string;
}

/**
 * The answer metadata a later turn reads (follow-up state), kept apart in the generated column
 * `chat_messages.follow_up` so history loads without the tool cards.
 */
export const HISTORY_METADATA_KEYS = ['lastFilter', 'lastFindingIds', 'lastScope', 'lastGroups'] as const;

/** What a history message carries of its metadata (`HISTORY_METADATA_KEYS`). */
export type StoredHistoryMetadata = Pick<AssistantMessageMetadata, (typeof HISTORY_METADATA_KEYS)[number]>;

/** A history message as `startRun` returns it (oldest first). */
export interface StoredHistoryMessage {
  role: ChatMessageEntity['role'];
  content: string;
  status: MessageStatus;
  metadata: StoredHistoryMetadata;
}

/** Options of `TurnLedger.startRun`. */
export interface StartRunOptions {
  /** At most this many of the thread's latest messages as history (default: all of them). */
  historyLimit?: number;
}

/** What `startRun` found and did, read and written in one statement. */
export interface TurnRunStart {
  turnId: string;
  chatId: string;
  /** The turn's status before this call (`queued`, `running`, or an ended status). */
  status: TurnStatus;
  ownerId: string;
  userMessageId: string;
  /** The operator's message of the turn. */
  userContent: string;
  /** The assistant message an earlier attempt stored, or null. */
  answer: { id: string; status: MessageStatus; metadata: ChatMessageEntity['metadata'] } | null;
  /** True when the claim matched, no answer was stored and the turn was active: it is now `running`. */
  started: boolean;
  /** The thread's messages before this turn, oldest first (empty unless `started`). */
  history: StoredHistoryMessage[];
}

/** How often the worker running a turn writes `alive_at` (`TurnLedger.heartbeat`). */
export const TURN_HEARTBEAT_MS = 3_000;
/** A running turn whose `alive_at` is younger than this has a worker on it (three missed beats). */
export const TURN_ALIVE_WITHIN_MS = 10_000;

/** A queued or running turn with the ids its job carries (`TurnLedger.findActive`, `staleActive`). */
export interface ActiveTurnRef {
  turnId: string;
  chatId: string;
  ownerId: string;
  userMessageId: string;
  queuePosition: number;
  status: 'queued' | 'running';
  /** A worker wrote its heartbeat within `TURN_ALIVE_WITHIN_MS`. */
  workerAlive: boolean;
}

export type FinishTurnResult =
  /**
   * This call ended the turn; `messageId` is the stored assistant message ('' when none stored);
   * `webhooks`: a webhook endpoint may want the ending (the owner's, or one for all operators).
   */
  | { kind: 'finished'; chatId: string; messageId: string; webhooks: boolean }
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

  /**
   * Runs one statement on a pooled connection and resolves with its rows: the structured result's
   * `records` are the rows whatever the statement's command (TypeORM's plain result is
   * `[rows, count]` for an UPDATE). Rejects with the driver's error.
   */
  private async rows<T>(sql: string, parameters: unknown[]): Promise<T[]> {
    const runner = this.db.createQueryRunner();
    try {
      return (await runner.query(sql, parameters, true)).records as T[];
    } finally {
      await runner.release();
    }
  }

  /**
   * Loads a turn and marks it running in one statement: when the claim matches, no answer is
   * stored and the turn is active, it becomes `running` and its history (latest
   * `historyLimit` messages, follow-up metadata only) is returned. Null when the turn does not exist.
   */
  @GenerateSql({
    params: [
      X.turnId,
      { attempt: 1, workerId: 'w1', ownerId: X.operatorId, chatId: X.chatId, userMessageId: X.missingId },
    ],
  })
  async startRun(
    turnId: string,
    claim: TurnRunClaim,
    options: StartRunOptions = {},
  ): Promise<TurnRunStart | null> {
    const rows: {
      chat_id: string;
      status: TurnStatus;
      owner_id: string;
      user_message_id: string;
      user_content: string;
      answer_id: string | null;
      answer_status: MessageStatus | null;
      answer_metadata: ChatMessageEntity['metadata'] | null;
      started: boolean;
      history: StoredHistoryMessage[] | null;
    }[] = await this.rows(
      `WITH t AS (
         SELECT t.id, t.chat_id, t.status, c.owner_id, u.id AS user_message_id, u.content AS user_content,
                a.id AS answer_id, a.status AS answer_status, a.metadata AS answer_metadata
           FROM chat_turns t
           JOIN chat_sessions c ON c.id = t.chat_id
           JOIN chat_messages u ON u.turn_id = t.id AND u.role = 'user'
           LEFT JOIN chat_messages a ON a.turn_id = t.id AND a.role = 'assistant'
          WHERE t.id = $1
       ), run AS (
         UPDATE chat_turns r
            SET status = 'running', attempt = $2, worker_id = $3, started_at = COALESCE(r.started_at, now()),
                alive_at = now()
           FROM t
          WHERE r.id = t.id AND r.status IN ('queued', 'running')
            AND t.owner_id = $4 AND t.chat_id = $5 AND t.user_message_id = $6 AND t.answer_id IS NULL
         RETURNING r.id
       )
       SELECT t.chat_id, t.status, t.owner_id, t.user_message_id, t.user_content,
              t.answer_id, t.answer_status, t.answer_metadata,
              EXISTS (SELECT 1 FROM run) AS started,
              CASE WHEN EXISTS (SELECT 1 FROM run) THEN (
                SELECT json_agg(json_build_object('role', h.role, 'content', h.content, 'status', h.status, 'metadata', h.metadata)
                                ORDER BY h.created_at, h.id)
                  FROM (SELECT m.id, m.created_at, m.role, m.content, m.status, m.follow_up AS metadata
                          FROM chat_messages m
                         WHERE m.chat_id = t.chat_id AND m.turn_id <> t.id
                         ORDER BY m.created_at DESC, m.id DESC
                         LIMIT $7) h
              ) END AS history
         FROM t`,
      [
        turnId,
        claim.attempt,
        claim.workerId,
        claim.ownerId,
        claim.chatId,
        claim.userMessageId,
        options.historyLimit ?? null,
      ],
    );
    const r = rows[0];
    if (!r) return null;
    return {
      turnId,
      chatId: r.chat_id,
      status: r.status,
      ownerId: r.owner_id,
      userMessageId: r.user_message_id,
      userContent: r.user_content,
      answer: r.answer_id
        ? { id: r.answer_id, status: r.answer_status!, metadata: r.answer_metadata ?? {} }
        : null,
      started: r.started,
      history: r.history ?? [],
    };
  }

  /** The attachment the turn's question is about (see `findTurnAttachment`), or null. */
  @GenerateSql({ params: [X.turnId] })
  attachment(turnId: string): Promise<TurnAttachment | null> {
    return findTurnAttachment(this.db.manager, turnId);
  }

  /** The turn's status, or null when it does not exist. */
  @GenerateSql({ params: [X.turnId] })
  async status(turnId: string): Promise<TurnStatus | null> {
    const row = await this.db
      .getRepository(ChatTurnEntity)
      .findOne({ where: { id: turnId }, select: { id: true, status: true } });
    return row?.status ?? null;
  }

  /**
   * Ends a turn once, in one statement: stores the answer and the turn's and thread's final state.
   * A second call (a retried job, a racing cancel) changes nothing (`already`).
   */
  @GenerateSql({ params: [X.turnId, { status: 'complete', content: 'Two.', metadata: {} }] })
  async finish(turnId: string, outcome: TurnOutcome): Promise<FinishTurnResult> {
    // One statement, so one round trip and an implicit transaction: `t` locks the turn row (a
    // concurrent finisher waits here and then sees the ended status); the message is inserted and
    // the turn and thread updated only when the turn was still active and had no answer.
    const rows: {
      chat_id: string;
      status: TurnStatus;
      message_id: string | null;
      new_message_id: string | null;
      finished: boolean;
      webhooks: boolean;
    }[] = await this.rows(
      `WITH t AS (
           SELECT id, chat_id, status, attempt, worker_id FROM chat_turns WHERE id = $1 FOR UPDATE
         ), a AS (
           SELECT id FROM chat_messages WHERE turn_id = $1 AND role = 'assistant'
         ), ok AS (
           SELECT id, chat_id FROM t WHERE status IN ('queued', 'running') AND NOT EXISTS (SELECT 1 FROM a)
              AND ($8::int IS NULL OR (t.attempt = $8 AND t.worker_id = $9))
         ), ins AS (
           INSERT INTO chat_messages (chat_id, turn_id, role, content, status, metadata)
           SELECT ok.chat_id, ok.id, 'assistant', $5, $2, $6::jsonb FROM ok WHERE $7::boolean
           RETURNING id
         ), ended AS (
           UPDATE chat_turns e SET status = $2, finished_at = now(), error_code = $3
             FROM ok WHERE e.id = ok.id
           RETURNING e.chat_id
         ), thread AS (
           UPDATE chat_sessions SET updated_at = now(), last_model = COALESCE($4, last_model)
            WHERE id = (SELECT chat_id FROM ended)
         )
         SELECT t.chat_id, t.status, (SELECT id FROM a) AS message_id, (SELECT id FROM ins) AS new_message_id,
                EXISTS (SELECT 1 FROM ended) AS finished,
                EXISTS (SELECT 1 FROM webhook_endpoints w JOIN chat_sessions c ON c.id = t.chat_id
                         WHERE w.all_operators OR w.operator_id = c.owner_id) AS webhooks
           FROM t`,
      [
        turnId,
        outcome.status,
        outcome.errorCode ?? null,
        outcome.model || null,
        storableText(outcome.content),
        storableJson(outcome.metadata ?? {}),
        outcome.storeMessage !== false,
        outcome.claim?.attempt ?? null,
        outcome.claim?.workerId ?? null,
      ],
    );
    const turn = rows[0];
    if (!turn) return { kind: 'gone' } as const;
    if (!turn.finished) {
      return {
        kind: 'already',
        chatId: turn.chat_id,
        messageId: turn.message_id,
        status: turn.status,
      } as const;
    }
    return {
      kind: 'finished',
      chatId: turn.chat_id,
      messageId: turn.new_message_id ?? '',
      webhooks: turn.webhooks,
    } as const;
  }

  /**
   * Deletes a turn that is still `queued`, with its user message (cascade): undoes a stored turn
   * whose job could not be added. Resolves false, changing nothing, when a worker already took it
   * (the add reached Redis after all) or it ended.
   */
  @GenerateSql({ params: [X.missingId] })
  async discardQueued(turnId: string): Promise<boolean> {
    const result = await this.db.getRepository(ChatTurnEntity).delete({ id: turnId, status: 'queued' });
    return (result.affected ?? 0) > 0;
  }

  /**
   * Turns queued or running whose last change (`started_at`, else `created_at`) is more than
   * `minAgeMs` old, oldest first, at most `limit`: the candidates of the API's sweep for turns
   * whose job is missing. Each with the ids its job carries and its queue position.
   */
  @GenerateSql({ params: [60_000] })
  async staleActive(minAgeMs: number, limit = 100): Promise<ActiveTurnRef[]> {
    return this.activeTurns(
      `AND COALESCE(t.started_at, t.created_at) < now() - make_interval(secs => $1::double precision / 1000)
        ORDER BY COALESCE(t.started_at, t.created_at) LIMIT $2`,
      [minAgeMs, limit],
    );
  }

  /** The turn when it is queued or running, else null. */
  @GenerateSql({ params: [X.turnId] })
  async findActive(turnId: string): Promise<ActiveTurnRef | null> {
    return (await this.activeTurns('AND t.id = $1', [turnId]))[0] ?? null;
  }

  private async activeTurns(where: string, parameters: unknown[]): Promise<ActiveTurnRef[]> {
    const rows: {
      turn_id: string;
      chat_id: string;
      owner_id: string;
      user_message_id: string;
      queue_position: number;
      status: 'queued' | 'running';
      worker_alive: boolean;
    }[] = await this.db.query(
      `SELECT t.id AS turn_id, t.chat_id, c.owner_id, u.id AS user_message_id, t.queue_position, t.status,
              COALESCE(t.alive_at > now() - interval '${TURN_ALIVE_WITHIN_MS} milliseconds', false) AS worker_alive
         FROM chat_turns t
         JOIN chat_sessions c ON c.id = t.chat_id
         JOIN chat_messages u ON u.turn_id = t.id AND u.role = 'user'
        WHERE t.status IN ('queued', 'running') ${where}`,
      parameters,
    );
    return rows.map((r) => ({
      turnId: r.turn_id,
      chatId: r.chat_id,
      ownerId: r.owner_id,
      userMessageId: r.user_message_id,
      queuePosition: r.queue_position,
      status: r.status,
      workerAlive: r.worker_alive,
    }));
  }

  /**
   * Marks running turns as having a live worker (`alive_at` = now), so the sweep leaves them alone
   * while Redis lost their jobs: one statement for all the turns a worker runs. Resolves with how
   * many were still running.
   */
  @GenerateSql({ params: [[X.turnId]] })
  async heartbeat(turnIds: readonly string[]): Promise<number> {
    if (!turnIds.length) return 0;
    const rows = await this.rows(
      `UPDATE chat_turns SET alive_at = now() WHERE id = ANY($1::uuid[]) AND status = 'running' RETURNING id`,
      [turnIds],
    );
    return rows.length;
  }

  /** Turns in `turnIds` that are still queued or running (for waits after a cancel). */
  @GenerateSql({ params: [[X.turnId]] })
  async stillActive(turnIds: string[]): Promise<string[]> {
    if (!turnIds.length) return [];
    const rows = await this.db
      .getRepository(ChatTurnEntity)
      .find({ where: { id: In(turnIds), status: In([...ACTIVE_TURN_STATUSES]) }, select: { id: true } });
    return rows.map((r) => r.id);
  }
}
