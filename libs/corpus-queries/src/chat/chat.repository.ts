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
   * Starts a turn in one transaction: two round trips to Postgres before `beforeCommit`, `BEGIN`
   * and one call of the `chat_try_start_turn` function (migration ChatStartTurnFunction) with
   * bound parameters (`TRY_START_TURN_SQL`, parsed once per pooled connection by `pg`), which
   * 1. locks the operator's row (`FOR NO KEY UPDATE`, waiting at most 5 s: `lock_timeout` of the
   *    function), so the operator's posts — on any API instance — pass the checks below one at a
   *    time;
   * 2. then (each statement a fresh snapshot, taken after the lock) checks, in this order, that the
   *    thread is the operator's (`not-found`), whether `clientMessageId` already started a turn in
   *    it (`existing`), whether a turn is queued or running in it (`busy`), whether the operator has
   *    `maxActiveTurns` turns queued or running over all threads (`over-quota`; null = no limit);
   * 3. and only then inserts the turn (`queued`, at `queuePosition` or, when null, 1 + the turns
   *    queued now) and the user message, and touches the thread (`updated_at`, and `autoTitle` when
   *    it was never named).
   * On `started`, `beforeCommit` runs (it publishes `turn.queued` and adds the job), then `COMMIT`.
   * Every other outcome, and any error (of Postgres, of `beforeCommit`, of the `COMMIT`), rolls
   * back: nothing is stored. Since every write precedes `beforeCommit`, what Postgres refuses is
   * refused before anything is published.
   * Throws the errors of Postgres as they are — among them 22021 for a NUL character in `content`
   * or `autoTitle`, 22001 for an `autoTitle` over 200 characters, 22P02 for a non-integer position
   * or limit — except a thread deleted between the check and the insert (23503: `not-found`) and
   * the operator's lock not obtained in 5 s (55P03: `locked`); and what `beforeCommit` throws.
   */
  async tryStartTurn(
    ownerId: string,
    chatId: string,
    input: TryStartTurnInput,
    beforeCommit: (turn: StartedTurn) => Promise<void>,
  ): Promise<StartTurnOutcome> {
    const [client, release] = (await (this.db.driver as PostgresDriver).obtainMasterConnection()) as [
      PgClient,
      (err?: unknown) => void,
    ];
    let broken: unknown;
    try {
      await client.query('BEGIN');
      const userMessageId = randomUUID();
      const outcome: StartTurnOutcome = await client
        .query({
          // Named: `pg` parses it once per connection (its protocol-level prepared statement).
          name: TRY_START_TURN_STATEMENT,
          text: TRY_START_TURN_SQL,
          values: [
            chatId,
            ownerId,
            input.clientMessageId,
            input.turnId,
            input.queuePosition,
            input.maxActiveTurns,
            userMessageId,
            input.content,
            input.autoTitle,
          ],
        })
        .then(
          (r) => toOutcome(r.rows[0] as StartTurnRow, chatId, ownerId),
          (e: { code?: string }) => {
            // The thread was deleted between the check and the insert (foreign key).
            if (e.code === '23503') return { kind: 'not-found' } as const;
            // Another start of the operator's held the lock for 5 s.
            if (e.code === '55P03') return { kind: 'locked' } as const;
            throw e;
          },
        );
      if (outcome.kind !== 'started') {
        await client.query('ROLLBACK');
        return outcome;
      }
      await beforeCommit(outcome.turn);
      await client.query('COMMIT');
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

/** The part of a `pg` client `tryStartTurn` uses. */
interface PgClient {
  query(query: string | { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
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

/** The row of `chat_try_start_turn` (see its migration). */
interface StartTurnRow {
  outcome: 'not-found' | 'existing' | 'busy' | 'over-quota' | 'started';
  /** The existing, busy or started turn. */
  turn_id: string | null;
  /** The user message of the existing or started turn. */
  user_message_id: string | null;
  /** The queue position of the existing or started turn. */
  queue_position: number | null;
  /** The operator's turns queued or running (counted only under a limit; else 0). */
  active_turns: number;
}

function toOutcome(r: StartTurnRow, chatId: string, ownerId: string): StartTurnOutcome {
  const turn = (created: boolean): StartedTurn => ({
    turnId: r.turn_id!,
    chatId,
    ownerId,
    userMessageId: r.user_message_id!,
    queuePosition: r.queue_position!,
    created,
  });
  switch (r.outcome) {
    case 'not-found':
      return { kind: 'not-found' };
    case 'existing':
      return { kind: 'existing', turn: turn(false) };
    case 'busy':
      return { kind: 'busy', activeTurnId: r.turn_id! };
    case 'over-quota':
      return { kind: 'over-quota', activeTurns: r.active_turns };
    case 'started':
      return { kind: 'started', turn: turn(true) };
    default:
      throw new Error(`chat_try_start_turn answered an unknown outcome: ${String(r.outcome)}`);
  }
}

/**
 * Name of `TRY_START_TURN_SQL` as a prepared statement of the `pg` client (per connection). A new
 * result shape of `chat_try_start_turn` needs a new name (a cached plan cannot change its result).
 */
const TRY_START_TURN_STATEMENT = 'chat_try_start_turn_v1';

/**
 * `tryStartTurn`'s one statement: $1 chat, $2 owner, $3 client message id, $4 turn id, $5 queue
 * position (null: 1 + the turns queued now), $6 limit of active turns (null: none), $7 user
 * message id, $8 its content, $9 the auto title. The function is described in its migration
 * (1764500600000-ChatStartTurnFunction).
 */
const TRY_START_TURN_SQL = `SELECT outcome, turn_id, user_message_id, queue_position, active_turns
  FROM chat_try_start_turn($1, $2, $3, $4, $5, $6, $7, $8, $9)`;
