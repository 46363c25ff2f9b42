import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { recordAuditEvent, type AuditActor } from '../audit/audit-log';
import { ChatMessageEntity } from './chat-message.entity';
import { ChatSessionEntity, type ChatTitleSource } from './chat-session.entity';
import { ACTIVE_TURN_STATUSES, ChatTurnEntity } from './chat-turn.entity';
import { feedbackOfTurns } from './turn-feedback';
import type { TurnFeedbackView } from '@corpus-chat/contracts';
import { GenerateSql, SQL_EXAMPLE as X } from '../sql/generate-sql';

/** Title of a thread before its first message (or when created without one). */
export const DEFAULT_CHAT_TITLE = 'New chat';

/** A thread with what its list entry shows. */
export interface ChatSummaryRow {
  chat: ChatSessionEntity;
  messageCount: number;
  /** The thread's queued or running turn. */
  activeTurn: { turnId: string; status: 'queued' | 'running' } | null;
  /** The newest answer is newer than the owner last saw the thread. */
  unread: boolean;
}

/** A row of `ChatRepository.summaries`. */
interface SummaryRow {
  id: string;
  owner_id: string;
  title: string;
  title_source: ChatTitleSource;
  last_model: string | null;
  archived: boolean;
  created_at: Date;
  updated_at: Date;
  active_turn_id: string | null;
  active_status: 'queued' | 'running' | null;
  message_count: number;
  unread: boolean;
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

/**
 * An operator's threads, messages and turns. Every method takes the owner id and scopes its query
 * by it, so another operator's thread is indistinguishable from a missing one.
 */
export class ChatRepository {
  constructor(private readonly db: DataSource) {}

  /** Records that `owner` exported their thread `chatId` (`chat.export` in the audit log, with its message count). */
  @GenerateSql({ params: [{ id: X.operatorId, username: 'alice' }, X.chatId, 3] })
  async recordExport(owner: AuditActor, chatId: string, messageCount: number): Promise<void> {
    await recordAuditEvent(this.db.manager, {
      action: 'chat.export',
      actor: owner,
      subjectType: 'chat',
      subjectId: chatId,
      after: { messageCount },
    });
  }

  /** Creates a thread; without a title it gets `DEFAULT_CHAT_TITLE` until its first message. */
  @GenerateSql({ params: [X.operatorId, 'Critical findings'] })
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
  @GenerateSql({ params: [X.operatorId, false] })
  async listChats(ownerId: string, archived: boolean): Promise<ChatSummaryRow[]> {
    return this.summaries(ownerId, 's.archived = $2', archived);
  }

  /** One thread of the operator, or null. */
  @GenerateSql({ params: [X.operatorId, X.chatId] })
  async findChat(ownerId: string, chatId: string): Promise<ChatSessionEntity | null> {
    return this.db.getRepository(ChatSessionEntity).findOneBy({ id: chatId, ownerId });
  }

  /** One thread of the operator with its list-entry data, or null. */
  @GenerateSql({ params: [X.operatorId, X.chatId] })
  async getChatSummary(ownerId: string, chatId: string): Promise<ChatSummaryRow | null> {
    return (await this.summaries(ownerId, 's.id = $2', chatId))[0] ?? null;
  }

  /**
   * The operator's threads matching `where` (on `s`, with `$2` = `arg`), newest first, with what
   * their list entries show, in one statement: each thread change and turn event reads one.
   */
  private async summaries(
    ownerId: string,
    where: 's.id = $2' | 's.archived = $2',
    arg: unknown,
  ): Promise<ChatSummaryRow[]> {
    const rows: SummaryRow[] = await this.db.query(
      `SELECT s.id, s.owner_id, s.title, s.title_source, s.last_model, s.archived, s.created_at,
              s.updated_at, t.id AS active_turn_id, t.status AS active_status,
              (SELECT count(*)::int FROM chat_messages m WHERE m.chat_id = s.id) AS message_count,
              EXISTS (SELECT 1 FROM chat_messages m
                       WHERE m.chat_id = s.id AND m.role = 'assistant'
                         AND m.created_at > coalesce(r.seen_at, '-infinity')) AS unread
         FROM chat_sessions s
         LEFT JOIN chat_reads r ON r.chat_id = s.id AND r.operator_id = s.owner_id
         LEFT JOIN LATERAL (SELECT id, status FROM chat_turns
                             WHERE chat_id = s.id AND status IN ('queued', 'running') LIMIT 1) t ON true
        WHERE s.owner_id = $1 AND ${where}
        ORDER BY s.updated_at DESC, s.id`,
      [ownerId, arg],
    );
    return rows.map((r) => ({
      chat: Object.assign(new ChatSessionEntity(), {
        id: r.id,
        ownerId: r.owner_id,
        title: r.title,
        titleSource: r.title_source,
        lastModel: r.last_model,
        archived: r.archived,
        createdAt: r.created_at,
        updatedAt: r.updated_at,
      }),
      messageCount: r.message_count,
      activeTurn: r.active_turn_id ? { turnId: r.active_turn_id, status: r.active_status! } : null,
      unread: r.unread,
    }));
  }

  /** The thread's messages, oldest first (user before assistant within a turn); null for a foreign thread. */
  @GenerateSql({ params: [X.operatorId, X.chatId] })
  async listMessages(ownerId: string, chatId: string): Promise<ChatMessageEntity[] | null> {
    if (!(await this.findChat(ownerId, chatId))) return null;
    return this.db
      .getRepository(ChatMessageEntity)
      .find({ where: { chatId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  /** The operator's feedback on the given turns of their threads, by turn id. */
  @GenerateSql({ params: [X.operatorId, [X.turnId]] })
  async feedbackOf(ownerId: string, turnIds: readonly string[]): Promise<Map<string, TurnFeedbackView>> {
    return feedbackOfTurns(this.db.manager, ownerId, turnIds);
  }

  /** Renames and/or (un)archives a thread. Returns the updated thread, or null when not the operator's. */
  @GenerateSql({ params: [X.operatorId, X.chatId, { title: 'Renamed', archived: false }] })
  async updateChat(
    ownerId: string,
    chatId: string,
    patch: { title?: string; archived?: boolean },
  ): Promise<ChatSessionEntity | null> {
    // A blank title keeps the current one, yet counts as the operator's choice.
    const title = patch.title?.trim();
    const { affected } = await this.db.getRepository(ChatSessionEntity).update(
      { id: chatId, ownerId },
      {
        ...(patch.title !== undefined ? { titleSource: 'user' as const, ...(title ? { title } : {}) } : {}),
        ...(patch.archived !== undefined ? { archived: patch.archived } : {}),
        updatedAt: new Date(),
      },
    );
    return affected ? this.findChat(ownerId, chatId) : null;
  }

  /** Deletes a thread with its turns and messages (cascade). Returns false when not the operator's. */
  @GenerateSql({ params: [X.operatorId, X.missingId] })
  async deleteChat(ownerId: string, chatId: string): Promise<boolean> {
    const result = await this.db.getRepository(ChatSessionEntity).delete({ id: chatId, ownerId });
    return (result.affected ?? 0) > 0;
  }

  /** The thread's queued or running turn, or null (also for a foreign thread). */
  @GenerateSql({ params: [X.operatorId, X.chatId] })
  async findActiveTurn(ownerId: string, chatId: string): Promise<ChatTurnEntity | null> {
    return this.db
      .getRepository(ChatTurnEntity)
      .createQueryBuilder('t')
      .innerJoin(ChatSessionEntity, 's', 's.id = t.chat_id')
      .where('t.chat_id = :chatId AND s.owner_id = :ownerId', { chatId, ownerId })
      .andWhere('t.status IN (:...statuses)', { statuses: ACTIVE_TURN_STATUSES })
      .getOne();
  }

  /** A turn of the operator's thread, or null. */
  @GenerateSql({ params: [X.operatorId, X.chatId, X.turnId] })
  async findTurn(ownerId: string, chatId: string, turnId: string): Promise<ChatTurnEntity | null> {
    return this.db
      .getRepository(ChatTurnEntity)
      .createQueryBuilder('t')
      .innerJoin(ChatSessionEntity, 's', 's.id = t.chat_id')
      .where('t.id = :turnId AND t.chat_id = :chatId AND s.owner_id = :ownerId', { turnId, chatId, ownerId })
      .getOne();
  }

  /** Ids of every turn of the operator's thread (empty for a missing or foreign thread). */
  @GenerateSql({ params: [X.operatorId, X.chatId] })
  async turnIds(ownerId: string, chatId: string): Promise<string[]> {
    const rows = await this.db
      .getRepository(ChatTurnEntity)
      .createQueryBuilder('t')
      .select('t.id', 'id')
      .innerJoin(ChatSessionEntity, 's', 's.id = t.chat_id')
      .where('t.chat_id = :chatId AND s.owner_id = :ownerId', { chatId, ownerId })
      .getRawMany<{ id: string }>();
    return rows.map((r) => r.id);
  }

  /**
   * Stores a turn and its user message in one transaction through `chat_try_start_turn` (migration
   * ChatStartTurnFunction): it locks the operator's row (≤ 5 s), checks `not-found`, `existing`,
   * `busy` and `over-quota` in that order, then inserts. On `started`, `lastCheck` runs before
   * COMMIT and may refuse by throwing (it must not enqueue: jobs are added after the commit). Any
   * other outcome rolls back. Throws Postgres' errors except 23503 (`not-found`) and 55P03 (`locked`).
   */
  @GenerateSql({
    params: [
      X.operatorId,
      X.chatId,
      {
        turnId: X.missingId,
        content: 'How many?',
        clientMessageId: null,
        queuePosition: null,
        autoTitle: 'How many?',
        maxActiveTurns: 5,
      },
    ],
  })
  async tryStartTurn(
    ownerId: string,
    chatId: string,
    input: TryStartTurnInput,
    lastCheck?: () => Promise<void>,
  ): Promise<StartTurnOutcome> {
    // Only `started` writes anything, so committing another outcome leaves the database as it was.
    return this.db.transaction(async (tx) => {
      const outcome: StartTurnOutcome = await tx
        .query(TRY_START_TURN_SQL, [
          chatId,
          ownerId,
          input.clientMessageId,
          input.turnId,
          input.queuePosition,
          input.maxActiveTurns,
          randomUUID(),
          input.content,
          input.autoTitle,
        ])
        .then(
          (rows: StartTurnRow[]) => toOutcome(rows[0], chatId, ownerId),
          (e: { code?: string }) => {
            // The thread was deleted between the check and the insert (foreign key).
            if (e.code === '23503') return { kind: 'not-found' } as const;
            // Another start of the operator's held the lock for 5 s.
            if (e.code === '55P03') return { kind: 'locked' } as const;
            throw e;
          },
        );
      if (outcome.kind === 'started') await lastCheck?.();
      return outcome;
    });
  }
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

/** `tryStartTurn`'s statement; the function's parameters are described in its migration. */
const TRY_START_TURN_SQL = `SELECT outcome, turn_id, user_message_id, queue_position, active_turns
  FROM chat_try_start_turn($1, $2, $3, $4, $5, $6, $7, $8, $9)`;
