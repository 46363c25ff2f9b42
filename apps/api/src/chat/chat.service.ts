import { randomUUID } from 'node:crypto';
import {
  ConflictException,
  Injectable,
  Logger,
  NotFoundException,
  ServiceUnavailableException,
} from '@nestjs/common';
import type {
  ActiveTurnView,
  CancelTurnResponse,
  ChatDetailView,
  ChatSummaryView,
  CreateChatDto,
  OperatorLanguage,
  PostMessageDto,
  PostMessageQueryDto,
  PostMessageResponse,
  UpdateChatDto,
} from '@corpus-chat/contracts';
import {
  ACTIVE_TURN_STATUSES,
  ChatRepository,
  DEFAULT_CHAT_TITLE,
  type StartedTurn,
  type StartTurnOutcome,
  TurnLedger,
} from '@corpus-chat/persistence';
import { turnTrace, inSpan, redisHang } from '@corpus-chat/server-core';
import { TooManyActiveTurnsException, TurnQuotaService } from '../auth/turn-quota.service';
import { ApiEnv } from '../config/api-env';
import { toChatMessageView, toChatSummaryView } from './chat-views';
import { MessageBudget } from './message-budget';
import { autoTitle, truncateMessage } from './message-text';
import { TurnDispatcher, TurnQueueUnavailableError } from './turn-dispatcher';

const notFound = () => new NotFoundException('Chat not found.');
const busy = (activeTurnId: string) =>
  new ConflictException({
    statusCode: 409,
    error: 'Conflict',
    message:
      'A turn is already queued or running in this chat. Wait for it, stop it, or send again with ?ifBusy=interrupt.',
    activeTurnId,
  });
const unavailable = () =>
  new ServiceUnavailableException(
    'The turn queue (Redis) is unavailable, so nothing was saved or started. Try again in a moment.',
  );

/**
 * An operator's threads and turns over REST and the gateway. Every method takes the operator id
 * and scopes by it: another operator's thread answers 404, like a missing one.
 */
@Injectable()
export class ChatService {
  private readonly logger = new Logger(ChatService.name);

  constructor(
    private readonly chats: ChatRepository,
    private readonly ledger: TurnLedger,
    private readonly dispatcher: TurnDispatcher,
    private readonly budget: MessageBudget,
    private readonly quota: TurnQuotaService,
    private readonly env: ApiEnv,
  ) {}

  /** `POST /api/chats`. */
  async createChat(ownerId: string, dto: CreateChatDto): Promise<ChatSummaryView> {
    const chat = await this.chats.createChat(ownerId, dto.title);
    return toChatSummaryView({ chat, messageCount: 0, activeTurn: null, unread: false });
  }

  /** `GET /api/chats?archived=`: the operator's threads (not archived unless `archived` is true). */
  async listChats(ownerId: string, archived: boolean): Promise<ChatSummaryView[]> {
    const rows = await this.chats.listChats(ownerId, archived);
    return rows.map((r) => toChatSummaryView(r));
  }

  /** `GET /api/chats/:id`: the thread with its messages and active turn. Throws 404. */
  /** Thread `chatId` of `owner` for a Markdown export, recorded in the audit log. @throws NotFoundException */
  async exportChat(owner: { id: string; username: string }, chatId: string): Promise<ChatDetailView> {
    const chat = await this.getChat(owner.id, chatId);
    await this.chats.recordExport(owner, chatId, chat.messages.length);
    return chat;
  }

  async getChat(ownerId: string, chatId: string): Promise<ChatDetailView> {
    const row = await this.chats.getChatSummary(ownerId, chatId);
    const messages = row && (await this.chats.listMessages(ownerId, chatId));
    if (!row || !messages) throw notFound();
    const answered = messages.filter((m) => m.role === 'assistant').map((m) => m.turnId);
    const feedback = await this.chats.feedbackOf(ownerId, answered);
    return {
      ...toChatSummaryView(row),
      messages: messages.map((m) => toChatMessageView(m, feedback.get(m.turnId))),
      // Postgres only: a hung Redis (this request's rate limit just timed out) is reported, not awaited.
      ...(redisHang.isHung(this.env.REDIS_URL) ? { live: 'unknown' as const } : {}),
    };
  }

  /** Whether the thread exists and is the operator's. */
  async ownsChat(ownerId: string, chatId: string): Promise<boolean> {
    return (await this.chats.findChat(ownerId, chatId)) !== null;
  }

  /** The thread's queued or running turn, or null. Throws 404. */
  async activeTurn(ownerId: string, chatId: string): Promise<ActiveTurnView | null> {
    const row = await this.chats.getChatSummary(ownerId, chatId);
    if (!row) throw notFound();
    return toChatSummaryView(row).activeTurn;
  }

  /** `PATCH /api/chats/:id`: rename and/or (un)archive. Throws 404. */
  async updateChat(ownerId: string, chatId: string, dto: UpdateChatDto): Promise<ChatSummaryView> {
    if (!(await this.chats.updateChat(ownerId, chatId, dto))) throw notFound();
    const row = await this.chats.getChatSummary(ownerId, chatId);
    if (!row) throw notFound();
    return toChatSummaryView(row);
  }

  /**
   * `DELETE /api/chats/:id`: stops the active turn (≤ `CANCEL_WAIT_MS`), deletes the thread, then its
   * turns' Redis keys. 404; 503 when Redis is down before anything was deleted.
   */
  async deleteChat(ownerId: string, chatId: string): Promise<void> {
    if (!(await this.chats.findChat(ownerId, chatId))) throw notFound();
    const active = await this.chats.findActiveTurn(ownerId, chatId);
    if (active) await this.guardRedis(() => this.stopTurn(active.id));
    const turnIds = await this.chats.turnIds(ownerId, chatId);
    await this.chats.deleteChat(ownerId, chatId);
    // The thread is gone either way; what Redis keeps of it expires (10 min after a turn ended).
    await this.dispatcher
      .forget(turnIds)
      .catch((e: Error) =>
        this.logger.warn(`chat ${chatId} deleted, but its turns' Redis keys stay: ${e.message}`),
      );
    this.logger.log(`chat ${chatId} deleted by operator ${ownerId}`);
  }

  /**
   * `POST /api/chats/:id/messages`: stores the message (cut to 100,000 characters) and turn, commits,
   * then queues. A repeated `clientMessageId` returns its turn; a busy thread is 409 unless
   * `ifBusy=interrupt`. 404 foreign, 429 over a limit, 503 Redis down (the stored turn is deleted).
   */
  async postMessage(
    owner: { id: string; language: OperatorLanguage },
    chatId: string,
    dto: PostMessageDto,
    query: PostMessageQueryDto,
  ): Promise<PostMessageResponse> {
    return inSpan('chat.post-message', { 'corpus_chat.chat_id': chatId }, async () => {
      const ownerId = owner.id;
      const { content, truncated } = truncateMessage(dto.content);
      const clientMessageId = dto.clientMessageId ?? null;
      let outcome = await this.tryStart(ownerId, chatId, content, clientMessageId);
      if (outcome.kind === 'busy') {
        // The rare path: its turn may have lost its job (recovered here) or be interrupted; then once more.
        const activeTurnId = outcome.activeTurnId;
        await this.guardRedis(() => this.clearBusyThread(activeTurnId, query.ifBusy ?? 'reject'));
        outcome = await this.tryStart(ownerId, chatId, content, clientMessageId);
        if (outcome.kind === 'busy') throw busy(outcome.activeTurnId);
      }
      if (outcome.kind === 'started') await this.enqueueStored(outcome.turn, owner.language);
      return this.answer(outcome, truncated);
    });
  }

  /** One `tryStartTurn` attempt; only a turn that passed every check spends the message budget. */
  private tryStart(
    ownerId: string,
    chatId: string,
    content: string,
    clientMessageId: string | null,
  ): Promise<StartTurnOutcome> {
    const input = {
      turnId: randomUUID(),
      content,
      clientMessageId,
      queuePosition: null,
      autoTitle: autoTitle(content) || DEFAULT_CHAT_TITLE,
      maxActiveTurns: this.quota.limit,
    };
    turnTrace.mark(input.turnId, 'api.store');
    return this.guardRedis(() =>
      this.chats.tryStartTurn(ownerId, chatId, input, () => this.budget.spend(ownerId)),
    );
  }

  /**
   * Queues a committed turn; on a Redis failure deletes it again (503), unless a worker already took
   * it. If the delete fails too, the sweep adds the job later.
   */
  private async enqueueStored(turn: StartedTurn, language: OperatorLanguage): Promise<void> {
    try {
      await this.dispatcher.enqueue(turn, language);
    } catch (e) {
      if (!(await this.ledger.discardQueued(turn.turnId))) {
        this.logger.warn(
          `turn ${turn.turnId}: enqueue reported ${(e as Error).message}, but a worker took it`,
        );
        return;
      }
      this.logger.warn(`turn ${turn.turnId} deleted again: it could not be queued (${(e as Error).message})`);
      // Not awaited: with Redis hung it would hold the 503 for another REDIS_REQUEST_TIMEOUT_MS.
      void this.dispatcher.forget([turn.turnId]).catch(() => undefined);
      throw e instanceof TurnQueueUnavailableError ? unavailable() : e;
    }
  }

  /** The HTTP answer to an attempt that did not find the thread busy. */
  private answer(outcome: StartTurnOutcome, truncated: boolean): PostMessageResponse {
    switch (outcome.kind) {
      case 'started':
      case 'existing': {
        const { turnId, userMessageId: messageId, queuePosition } = outcome.turn;
        return { turnId, messageId, queuePosition, truncated };
      }
      case 'not-found':
        throw notFound();
      case 'over-quota':
      case 'locked': // another message of the operator's has been in flight for 5 s
        throw new TooManyActiveTurnsException(this.quota.limit);
      default:
        throw new Error(`unexpected outcome of a message post: ${outcome.kind}`);
    }
  }

  /**
   * `POST /api/chats/:id/turns/:turnId/cancel` and the gateway's `chat:cancel`: a queued turn is
   * removed and ended at once, a running one is signalled and stops within a second. Throws 404.
   */
  async cancelTurn(ownerId: string, chatId: string, turnId: string): Promise<CancelTurnResponse> {
    const turn = await this.chats.findTurn(ownerId, chatId, turnId);
    if (!turn) throw new NotFoundException('Turn not found.');
    if (!ACTIVE_TURN_STATUSES.includes(turn.status)) return { turnId, state: 'finished' };
    const state = await this.guardRedis(() => this.dispatcher.cancel(turnId));
    this.logger.log(`turn ${turnId} cancel requested by operator ${ownerId} (${state})`);
    return { turnId, state };
  }

  /**
   * Frees a thread whose turn is active: a turn whose job is gone is ended (a queued one without a
   * job gets it back and keeps the thread busy), else refuses (409) or interrupts it.
   */
  private async clearBusyThread(turnId: string, ifBusy: 'reject' | 'interrupt'): Promise<void> {
    const turn = await this.ledger.findActive(turnId);
    if (!turn) return; // it ended meanwhile
    if ((await this.dispatcher.recover(turn)) === 'ended') return;
    if (ifBusy !== 'interrupt') throw busy(turnId);
    await this.stopTurn(turnId);
  }

  /** Cancels a turn and waits for its worker to end it; ends it here when the worker does not in time. */
  private async stopTurn(turnId: string): Promise<void> {
    if ((await this.dispatcher.cancel(turnId)) !== 'stopping') return;
    const left = await this.dispatcher.waitUntilEnded([turnId], this.env.CANCEL_WAIT_MS);
    if (left.length) {
      this.logger.warn(
        `turn ${turnId} did not stop within ${this.env.CANCEL_WAIT_MS} ms; ending it from the API`,
      );
      await this.dispatcher.finish(turnId, { kind: 'cancelled' });
    }
  }

  private async guardRedis<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (e) {
      if (e instanceof TurnQueueUnavailableError) {
        this.logger.warn(`Redis unavailable: ${e.message}`);
        throw unavailable();
      }
      throw e;
    }
  }
}
