import { randomUUID } from 'node:crypto';
import { type DataSource, In } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { ChatMessageEntity } from './chat-message.entity';
import { ChatSessionEntity } from './chat-session.entity';
import { ACTIVE_TURN_STATUSES, ChatTurnEntity } from './chat-turn.entity';

/** Title of a thread before its first message (or when created without one). */
export const DEFAULT_CHAT_TITLE = 'New chat';

/** A thread with what its list entry shows. */
export interface ChatSummaryRow {
  chat: ChatSessionEntity;
  messageCount: number;
  /** The thread's queued or running turn. */
  activeTurn: { turnId: string; status: 'queued' | 'running' } | null;
}

/** A turn as the message POST answers it. */
export interface StartedTurn {
  turnId: string;
  chatId: string;
  ownerId: string;
  userMessageId: string;
  queuePosition: number;
  /** False when the client message id matched an existing turn (a retried POST). */
  created: boolean;
}

export interface StartTurnInput {
  /** Id of the new turn (and of its BullMQ job). */
  turnId: string;
  /** The operator's message, already cut to its maximum length. */
  content: string;
  clientMessageId: string | null;
  /** Queue position reported to the client (1 = next). */
  queuePosition: number;
  /** Title the thread takes when this is its first message and the operator never named it. */
  autoTitle: string;
}

/** The thread does not exist or is not the operator's (answer 404, never 403). */
export class ChatNotFoundError extends Error {
  constructor(readonly chatId: string) {
    super(`Chat ${chatId} not found`);
    this.name = 'ChatNotFoundError';
  }
}

/** The thread already has a queued or running turn (answer 409 with its id). */
export class ActiveTurnConflictError extends Error {
  constructor(readonly activeTurnId: string) {
    super(`A turn is already in progress in this chat (${activeTurnId})`);
    this.name = 'ActiveTurnConflictError';
  }
}

/**
 * An operator's threads, messages and turns. Every method takes the owner id and scopes its query
 * by it, so another operator's thread is indistinguishable from a missing one.
 */
export class ChatRepository {
  constructor(private readonly db: DataSource) {}

  /** Creates a thread; without a title it gets `DEFAULT_CHAT_TITLE` until its first message. */
  async createChat(ownerId: string, title?: string | null): Promise<ChatSessionEntity> {
    const repo = this.db.getRepository(ChatSessionEntity);
    const trimmed = title?.trim();
    return repo.save(
      repo.create({
        ownerId,
        title: trimmed || DEFAULT_CHAT_TITLE,
        titleSource: trimmed ? 'user' : 'default',
      }),
    );
  }

  /** The operator's threads, most recently changed first, archived or not. */
  async listChats(ownerId: string, archived: boolean): Promise<ChatSummaryRow[]> {
    const chats = await this.db.getRepository(ChatSessionEntity).find({
      where: { ownerId, archived },
      order: { updatedAt: 'DESC', id: 'ASC' },
    });
    return this.summarise(chats);
  }

  /** One thread of the operator, or null. */
  async findChat(ownerId: string, chatId: string): Promise<ChatSessionEntity | null> {
    return this.db.getRepository(ChatSessionEntity).findOneBy({ id: chatId, ownerId });
  }

  /** One thread of the operator with its list-entry data, or null. */
  async getChatSummary(ownerId: string, chatId: string): Promise<ChatSummaryRow | null> {
    const chat = await this.findChat(ownerId, chatId);
    return chat ? (await this.summarise([chat]))[0] : null;
  }

  private async summarise(chats: ChatSessionEntity[]): Promise<ChatSummaryRow[]> {
    if (!chats.length) return [];
    const ids = chats.map((c) => c.id);
    const counts: { chat_id: string; n: string }[] = await this.db.query(
      `SELECT chat_id, count(*) AS n FROM chat_messages WHERE chat_id = ANY($1::uuid[]) GROUP BY chat_id`,
      [ids],
    );
    const active = await this.db
      .getRepository(ChatTurnEntity)
      .find({ where: { chatId: In(ids), status: In([...ACTIVE_TURN_STATUSES]) } });
    const countBy = new Map(counts.map((r) => [r.chat_id, Number(r.n)]));
    const activeBy = new Map(active.map((t) => [t.chatId, t]));
    return chats.map((chat) => {
      const t = activeBy.get(chat.id);
      return {
        chat,
        messageCount: countBy.get(chat.id) ?? 0,
        activeTurn: t ? { turnId: t.id, status: t.status as 'queued' | 'running' } : null,
      };
    });
  }

  /** The thread's messages, oldest first (user before assistant within a turn); null for a foreign thread. */
  async listMessages(ownerId: string, chatId: string): Promise<ChatMessageEntity[] | null> {
    if (!(await this.findChat(ownerId, chatId))) return null;
    return this.db
      .getRepository(ChatMessageEntity)
      .find({ where: { chatId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  /** Renames and/or (un)archives a thread. Returns the updated thread, or null when not the operator's. */
  async updateChat(
    ownerId: string,
    chatId: string,
    patch: { title?: string; archived?: boolean },
  ): Promise<ChatSessionEntity | null> {
    const chat = await this.findChat(ownerId, chatId);
    if (!chat) return null;
    if (patch.title !== undefined) {
      chat.title = patch.title.trim() || chat.title;
      chat.titleSource = 'user';
    }
    if (patch.archived !== undefined) chat.archived = patch.archived;
    chat.updatedAt = new Date();
    return this.db.getRepository(ChatSessionEntity).save(chat);
  }

  /** Deletes a thread with its turns and messages (cascade). Returns false when not the operator's. */
  async deleteChat(ownerId: string, chatId: string): Promise<boolean> {
    const result = await this.db.getRepository(ChatSessionEntity).delete({ id: chatId, ownerId });
    return (result.affected ?? 0) > 0;
  }

  /** The thread's queued or running turn, or null (also for a foreign thread). */
  async findActiveTurn(ownerId: string, chatId: string): Promise<ChatTurnEntity | null> {
    return this.db
      .getRepository(ChatTurnEntity)
      .createQueryBuilder('t')
      .innerJoin(ChatSessionEntity, 's', 's.id = t.chat_id')
      .where('t.chat_id = :chatId AND s.owner_id = :ownerId', { chatId, ownerId })
      .andWhere('t.status IN (:...statuses)', { statuses: ACTIVE_TURN_STATUSES })
      .getOne();
  }

  /** Number of the operator's turns queued or running, over all their threads (for the per-operator limit). */
  async countActiveTurns(ownerId: string): Promise<number> {
    return this.db
      .getRepository(ChatTurnEntity)
      .createQueryBuilder('t')
      .innerJoin(ChatSessionEntity, 's', 's.id = t.chat_id')
      .where('s.owner_id = :ownerId', { ownerId })
      .andWhere('t.status IN (:...statuses)', { statuses: ACTIVE_TURN_STATUSES })
      .getCount();
  }

  /** A turn of the operator's thread, or null. */
  async findTurn(ownerId: string, chatId: string, turnId: string): Promise<ChatTurnEntity | null> {
    return this.db
      .getRepository(ChatTurnEntity)
      .createQueryBuilder('t')
      .innerJoin(ChatSessionEntity, 's', 's.id = t.chat_id')
      .where('t.id = :turnId AND t.chat_id = :chatId AND s.owner_id = :ownerId', { turnId, chatId, ownerId })
      .getOne();
  }

  /** The turn a client message id already started in the operator's thread, or null. */
  async findTurnByClientMessage(
    ownerId: string,
    chatId: string,
    clientMessageId: string,
  ): Promise<StartedTurn | null> {
    const rows: { turn_id: string; queue_position: number; user_message_id: string }[] = await this.db.query(
      `SELECT t.id AS turn_id, t.queue_position, m.id AS user_message_id
         FROM chat_turns t
         JOIN chat_sessions s ON s.id = t.chat_id
         JOIN chat_messages m ON m.turn_id = t.id AND m.role = 'user'
        WHERE t.chat_id = $1 AND s.owner_id = $2 AND t.client_message_id = $3`,
      [chatId, ownerId, clientMessageId],
    );
    const r = rows[0];
    return r
      ? {
          turnId: r.turn_id,
          chatId,
          ownerId,
          userMessageId: r.user_message_id,
          queuePosition: r.queue_position,
          created: false,
        }
      : null;
  }

  /**
   * Starts a turn (see `tryStartTurn`) with no per-operator limit and a known queue position;
   * returns the existing turn when `clientMessageId` was seen before. Throws `ChatNotFoundError`
   * for a missing or foreign thread and `ActiveTurnConflictError` when a turn is queued or
   * running. If `beforeCommit` throws, nothing is stored.
   */
  async startTurn(
    ownerId: string,
    chatId: string,
    input: StartTurnInput,
    beforeCommit: (turn: StartedTurn) => Promise<void>,
  ): Promise<StartedTurn> {
    const outcome = await this.tryStartTurn(ownerId, chatId, { ...input, maxActiveTurns: null }, beforeCommit);
    switch (outcome.kind) {
      case 'started':
      case 'existing':
        return outcome.turn;
      case 'not-found':
        throw new ChatNotFoundError(chatId);
      case 'busy':
        throw new ActiveTurnConflictError(outcome.activeTurnId);
      default:
        throw new Error(`unexpected outcome ${outcome.kind} of a turn start without limit`);
    }
  }

  /**
   * Starts a turn in one transaction and one round trip to Postgres before `beforeCommit`: a
   * simple-protocol query of three statements,
   * 1. `BEGIN` (with `lock_timeout` 5 s),
   * 2. a lock on the operator's row (`FOR NO KEY UPDATE`), so the operator's posts — on any API
   *    instance — pass the checks below one at a time,
   * 3. `EXECUTE` of the prepared `START_TURN_SQL` (a fresh snapshot, taken after the lock), which
   *    checks, in this order, that the thread is the operator's (`not-found`), whether
   *    `clientMessageId` already started a turn in it (`existing`), whether a turn is queued or
   *    running in it (`busy`), whether the operator has `maxActiveTurns` turns queued or running
   *    over all threads (`over-quota`; null = no limit), and only then inserts the turn (`queued`,
   *    at `queuePosition` or, when null, 1 + the turns queued now).
   * On `started`, `beforeCommit` runs (it publishes `turn.queued` and adds the job); then one more
   * round trip inserts the user message, touches the thread (`updated_at`, and the auto title when
   * it was never named) and commits (`FINISH_START_SQL` + `COMMIT`). What it writes cannot be
   * refused (no NUL, a title within 200 characters: checked first, else this throws before
   * anything), and the thread row cannot go away meanwhile (the turn's foreign key holds it).
   * If `beforeCommit` or the last round trip throws, the transaction is rolled back and the error
   * rethrown. Every other outcome rolls back (nothing was written).
   * The values travel as literals escaped by the `pg` client (`escapeLiteral`); the statements are
   * prepared once per pooled connection (extra round trips the first time). Errors of Postgres are thrown as they are, except a
   * thread deleted meanwhile (`not-found`) and the operator's lock not obtained in 5 s (`locked`).
   */
  async tryStartTurn(
    ownerId: string,
    chatId: string,
    input: TryStartTurnInput,
    beforeCommit: (turn: StartedTurn) => Promise<void>,
  ): Promise<StartTurnOutcome> {
    // What is written after `turn.queued` is published must not fail: refuse what Postgres would.
    if (input.content.includes('\u0000') || input.autoTitle.includes('\u0000')) {
      throw new Error('a message or title holding a NUL character cannot be stored');
    }
    if (input.autoTitle.length > MAX_TITLE_CHARS) throw new Error(`an auto title over ${MAX_TITLE_CHARS} characters`);
    const [client, release] = (await (this.db.driver as PostgresDriver).obtainMasterConnection()) as [
      PgClient,
      (err?: unknown) => void,
    ];
    let broken: unknown;
    try {
      if (!preparedOn.has(client)) {
        for (const sql of [
          `PREPARE ${START_TURN_STATEMENT} (${START_TURN_PARAM_TYPES}) AS ${START_TURN_SQL}`,
          `PREPARE ${FINISH_START_STATEMENT} (${FINISH_START_PARAM_TYPES}) AS ${FINISH_START_SQL}`,
        ]) {
          // 42P05: already prepared on this connection (kept from before a 26000 below).
          await client.query(sql).catch((e: { code?: string }) => {
            if (e.code !== '42P05') throw e;
          });
        }
        preparedOn.add(client);
      }
      const lit = (v: string | number | null): string =>
        v === null ? 'NULL' : typeof v === 'number' ? safeInt(v) : client.escapeLiteral(v);
      const args = [chatId, ownerId, input.clientMessageId, input.turnId, input.queuePosition, input.maxActiveTurns].map(lit);
      const userMessageId = randomUUID();
      const results = await client
        .query(
          `BEGIN; SET LOCAL lock_timeout = '5s'; ` +
            `SELECT 1 FROM operators WHERE id = ${lit(ownerId)}::uuid FOR NO KEY UPDATE; ` +
            `EXECUTE ${START_TURN_STATEMENT} (${args.join(', ')})`,
        )
        .then(
          (r) => r as unknown as { rows: unknown[] }[],
          (e: { code?: string }) => {
            if (e.code === '26000') preparedOn.delete(client); // the statement is gone: prepare again next time
            // The thread was deleted between the snapshot and the insert (foreign key).
            if (e.code === '23503') return null;
            // Another start of the operator's held the lock for 5 s.
            if (e.code === '55P03') return 'locked' as const;
            throw e;
          },
        );
      const outcome: StartTurnOutcome =
        results === 'locked'
          ? { kind: 'locked' }
          : results
            ? toOutcome(results[results.length - 1]!.rows[0] as StartTurnRow, chatId, ownerId, userMessageId)
            : { kind: 'not-found' };
      if (outcome.kind !== 'started') {
        await client.query('ROLLBACK');
        return outcome;
      }
      await beforeCommit(outcome.turn);
      const finish = [userMessageId, chatId, input.turnId, input.content, input.autoTitle].map(lit);
      await client.query(`EXECUTE ${FINISH_START_STATEMENT} (${finish.join(', ')}); COMMIT`);
      return outcome;
    } catch (e) {
      // Outside a transaction ROLLBACK only warns; if it fails the connection is not reused.
      broken = await client.query('ROLLBACK').then(
        () => undefined,
        (err: unknown) => err ?? new Error('ROLLBACK failed'),
      );
      throw e;
    } finally {
      release(broken);
    }
  }
}

/** Length of `chat_sessions.title` (varchar). */
const MAX_TITLE_CHARS = 200;

/** Pooled connections `START_TURN_SQL` and `FINISH_START_SQL` are prepared on. */
const preparedOn = new WeakSet<object>();

function safeInt(v: number): string {
  if (!Number.isSafeInteger(v)) throw new Error(`not an integer: ${v}`);
  return String(v);
}

/** The part of a `pg` client `tryStartTurn` uses. */
interface PgClient {
  query(sql: string): Promise<{ rows: unknown[] }>;
  escapeLiteral(value: string): string;
}

/** What `tryStartTurn` needs besides the ids. */
export interface TryStartTurnInput extends Omit<StartTurnInput, 'queuePosition'> {
  /** Queue position (1 = next); null = 1 + the turns queued (of every operator) when it is stored. */
  queuePosition: number | null;
  /** The operator's limit of turns queued or running at once; null = none. */
  maxActiveTurns: number | null;
}

/** How `tryStartTurn` ended. Only `started` wrote anything. */
export type StartTurnOutcome =
  | { kind: 'started'; turn: StartedTurn }
  /** The client message id already started this turn (a retried POST). */
  | { kind: 'existing'; turn: StartedTurn }
  /** The thread is missing or not the operator's. */
  | { kind: 'not-found' }
  /** A turn is queued or running in the thread. */
  | { kind: 'busy'; activeTurnId: string }
  /** The operator already has `activeTurns` (≥ the limit) turns queued or running. */
  | { kind: 'over-quota'; activeTurns: number }
  /** Another start of the operator's held the operator's lock for 5 s (`lock_timeout`). */
  | { kind: 'locked' };

interface StartTurnRow {
  found: boolean;
  existing_turn_id: string | null;
  existing_position: number | null;
  existing_message_id: string | null;
  active_turn_id: string | null;
  active_turns: number;
  turn_id: string | null;
  queue_position: number;
}

function toOutcome(r: StartTurnRow, chatId: string, ownerId: string, userMessageId: string): StartTurnOutcome {
  if (!r.found) return { kind: 'not-found' };
  if (r.existing_turn_id) {
    return {
      kind: 'existing',
      turn: {
        turnId: r.existing_turn_id,
        chatId,
        ownerId,
        userMessageId: r.existing_message_id!,
        queuePosition: r.existing_position!,
        created: false,
      },
    };
  }
  if (r.active_turn_id) return { kind: 'busy', activeTurnId: r.active_turn_id };
  if (r.turn_id) {
    return {
      kind: 'started',
      turn: { turnId: r.turn_id, chatId, ownerId, userMessageId, queuePosition: r.queue_position, created: true },
    };
  }
  return { kind: 'over-quota', activeTurns: r.active_turns };
}

const START_TURN_STATEMENT = 'chat_start_turn_v2';
const START_TURN_PARAM_TYPES = 'uuid, uuid, uuid, uuid, int, int';
const FINISH_START_STATEMENT = 'chat_finish_turn_start_v1';
const FINISH_START_PARAM_TYPES = 'uuid, uuid, uuid, text, text';

/**
 * The checks of `tryStartTurn` and the turn's INSERT in one statement (prepared as
 * `START_TURN_STATEMENT` with `START_TURN_PARAM_TYPES`). $1 chat, $2 owner, $3 client message id,
 * $4 turn id, $5 queue position (null: 1 + the turns queued now), $6 limit of active turns (null:
 * none). The user message and the thread's title go with the commit (`FINISH_START_SQL`). The
 * INSERT only fires when `go` has a row.
 */
const START_TURN_SQL = `
WITH chat AS (
  SELECT id FROM chat_sessions WHERE id = $1 AND owner_id = $2
), existing AS (
  SELECT t.id AS turn_id, t.queue_position, m.id AS message_id
    FROM chat_turns t JOIN chat_messages m ON m.turn_id = t.id AND m.role = 'user'
   WHERE $3::uuid IS NOT NULL AND t.chat_id = $1 AND t.client_message_id = $3::uuid
     AND EXISTS (SELECT 1 FROM chat)
), active AS (
  SELECT id FROM chat_turns WHERE chat_id = $1 AND status IN ('queued', 'running') LIMIT 1
), quota AS (
  SELECT count(*)::int AS n
    FROM chat_turns t JOIN chat_sessions s ON s.id = t.chat_id
   WHERE s.owner_id = $2 AND t.status IN ('queued', 'running') AND $6::int IS NOT NULL
), go AS (
  SELECT 1 FROM chat
   WHERE NOT EXISTS (SELECT 1 FROM existing) AND NOT EXISTS (SELECT 1 FROM active)
     AND ($6::int IS NULL OR (SELECT n FROM quota) < $6::int)
), position AS (
  SELECT COALESCE($5::int, (SELECT count(*)::int + 1 FROM chat_turns WHERE status = 'queued')) AS n
    FROM go
), turn AS (
  INSERT INTO chat_turns (id, chat_id, client_message_id, status, queue_position)
  SELECT $4::uuid, $1, $3::uuid, 'queued', position.n FROM position
  RETURNING id, queue_position
)
SELECT EXISTS (SELECT 1 FROM chat) AS found,
       (SELECT turn_id FROM existing) AS existing_turn_id,
       (SELECT queue_position FROM existing) AS existing_position,
       (SELECT message_id FROM existing) AS existing_message_id,
       (SELECT id FROM active) AS active_turn_id,
       COALESCE((SELECT n FROM quota), 0) AS active_turns,
       (SELECT id FROM turn) AS turn_id,
       (SELECT queue_position FROM turn) AS queue_position`;

/**
 * The rest of a started turn's writes, sent with its `COMMIT` (prepared as
 * `FINISH_START_STATEMENT`): the user message ($1 id, $2 chat, $3 turn, $4 content) and the
 * thread's `updated_at` and, when it was never named, its auto title ($5).
 */
const FINISH_START_SQL = `
WITH msg AS (
  INSERT INTO chat_messages (id, chat_id, turn_id, role, content, status, metadata)
  VALUES ($1, $2, $3, 'user', $4, 'complete', '{}'::jsonb)
)
UPDATE chat_sessions s
   SET updated_at = now(),
       title = CASE WHEN s.title_source = 'default' THEN $5 ELSE s.title END,
       title_source = CASE WHEN s.title_source = 'default' THEN 'auto' ELSE s.title_source END
 WHERE s.id = $2`;
