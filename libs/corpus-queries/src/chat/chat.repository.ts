import { type DataSource, In } from 'typeorm';
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
   * Starts a turn in one transaction: locks the thread row (so concurrent posts to one thread run
   * one after the other), returns the existing turn when `clientMessageId` was seen before, refuses
   * when a turn is queued or running (`ActiveTurnConflictError`), else inserts the turn (`queued`)
   * and the user message, gives an untitled thread its auto title, and runs `beforeCommit` (which
   * enqueues the job) before committing. If `beforeCommit` throws, nothing is stored.
   * Throws `ChatNotFoundError` for a missing or foreign thread.
   */
  async startTurn(
    ownerId: string,
    chatId: string,
    input: StartTurnInput,
    beforeCommit: (turn: StartedTurn) => Promise<void>,
  ): Promise<StartedTurn> {
    return this.db.transaction(async (m) => {
      const chat = await m
        .getRepository(ChatSessionEntity)
        .findOne({ where: { id: chatId, ownerId }, lock: { mode: 'pessimistic_write' } });
      if (!chat) throw new ChatNotFoundError(chatId);
      if (input.clientMessageId) {
        const rows: { turn_id: string; queue_position: number; user_message_id: string }[] = await m.query(
          `SELECT t.id AS turn_id, t.queue_position, mm.id AS user_message_id
             FROM chat_turns t JOIN chat_messages mm ON mm.turn_id = t.id AND mm.role = 'user'
            WHERE t.chat_id = $1 AND t.client_message_id = $2`,
          [chatId, input.clientMessageId],
        );
        if (rows[0]) {
          const r = rows[0];
          return {
            turnId: r.turn_id,
            chatId,
            ownerId,
            userMessageId: r.user_message_id,
            queuePosition: r.queue_position,
            created: false,
          };
        }
      }
      const active = await m
        .getRepository(ChatTurnEntity)
        .findOne({ where: { chatId, status: In([...ACTIVE_TURN_STATUSES]) } });
      if (active) throw new ActiveTurnConflictError(active.id);

      await m.getRepository(ChatTurnEntity).insert({
        id: input.turnId,
        chatId,
        clientMessageId: input.clientMessageId,
        status: 'queued',
        queuePosition: input.queuePosition,
      });
      const inserted = await m.getRepository(ChatMessageEntity).insert({
        chatId,
        turnId: input.turnId,
        role: 'user',
        content: input.content,
        status: 'complete',
        metadata: {},
      });
      const userMessageId = inserted.identifiers[0]['id'] as string;
      // An UPDATE of the changed columns (save() would first SELECT the row again to diff it).
      await m
        .getRepository(ChatSessionEntity)
        .update({ id: chatId }, { updatedAt: new Date(), ...(chat.titleSource === 'default' ? { title: input.autoTitle, titleSource: 'auto' as const } : {}) });
      const started: StartedTurn = {
        turnId: input.turnId,
        chatId,
        ownerId,
        userMessageId,
        queuePosition: input.queuePosition,
        created: true,
      };
      await beforeCommit(started);
      return started;
    });
  }
}
