import { Queue } from 'bullmq';
import {
  CHAT_TURNS_QUEUE,
  type ChatEvent,
  type ChatEventType,
  JobNames,
  NO_SEQ,
  type RunTurnJobData,
  type RunTurnJobResult,
} from '@corpus-chat/contracts';
import { ChatRepository, TurnLedger } from '@corpus-chat/persistence';
import {
  createTestDatabase,
  eventually,
  insertTestOperator,
  storeTestTurn,
  type TestDatabase,
  testRedisPrefix,
} from '@corpus-chat/persistence/testing';
import {
  closeRedis,
  createRedisConnection,
  type RedisClient,
  RedisKeys,
  redisOptionsFromUrl,
  TurnCancelSignals,
  TurnEventBus,
  TurnEventSubscriber,
} from '@corpus-chat/server-core';

const REDIS_URL = process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';

/**
 * Everything a worker test needs without the API: its own database and Redis prefix, a queue to
 * add turn jobs to (as the API does), and every turn event published, collected per turn.
 */
export class TurnTestBed {
  readonly prefix = testRedisPrefix();
  readonly keys = new RedisKeys(this.prefix);
  readonly chats: ChatRepository;
  readonly ledger: TurnLedger;
  readonly bus: TurnEventBus;
  readonly cancels: TurnCancelSignals;
  readonly queue: Queue<RunTurnJobData, RunTurnJobResult>;
  private readonly eventsByTurn = new Map<string, ChatEvent[]>();
  private readonly subscriber: TurnEventSubscriber;
  private readonly unsubscribers: (() => Promise<void>)[] = [];

  private constructor(
    readonly db: TestDatabase,
    readonly redis: RedisClient,
  ) {
    this.chats = new ChatRepository(db.dataSource);
    this.ledger = new TurnLedger(db.dataSource);
    this.bus = new TurnEventBus(redis, this.keys);
    this.cancels = new TurnCancelSignals(
      redis,
      () => createRedisConnection(REDIS_URL, 'test-cancel-sub', 'subscriber'),
      this.keys,
    );
    this.subscriber = new TurnEventSubscriber(
      () => createRedisConnection(REDIS_URL, 'test-events-sub', 'subscriber'),
      this.keys,
    );
    this.queue = new Queue(CHAT_TURNS_QUEUE, {
      connection: redisOptionsFromUrl(REDIS_URL),
      prefix: this.keys.bullPrefix,
    });
  }

  static async create(): Promise<TurnTestBed> {
    return new TurnTestBed(
      await createTestDatabase(),
      createRedisConnection(REDIS_URL, 'test-bed', 'patient'),
    );
  }

  get databaseUrl(): string {
    return this.db.url;
  }

  /** A new operator row (threads need a real owner). */
  async newOperator(): Promise<string> {
    return (await insertTestOperator(this.db.dataSource)).id;
  }

  /** A new thread of `ownerId` (default: a new operator; threads need a real owner) whose events are collected. */
  async newChat(ownerId?: string): Promise<{ chatId: string; ownerId: string }> {
    ownerId ??= await this.newOperator();
    const chat = await this.chats.createChat(ownerId);
    this.unsubscribers.push(
      await this.subscriber.subscribeChat(chat.id, (e) => {
        const list = this.eventsByTurn.get(e.turnId) ?? [];
        list.push(e);
        this.eventsByTurn.set(e.turnId, list);
      }),
    );
    return { chatId: chat.id, ownerId };
  }

  /** Stores a queued turn without adding its job (a test hands it to a use case itself). */
  store(thread: { chatId: string; ownerId: string }, content: string) {
    return storeTestTurn(this.db.dataSource, thread.ownerId, thread.chatId, { content, autoTitle: 'test' });
  }

  /**
   * Stores a turn and adds its job exactly as the API does: commit, then turn.queued, then the job.
   * `jobOwnerId` forges the job's owner.
   */
  async enqueue(
    thread: { chatId: string; ownerId: string },
    content: string,
    opts: { attempts?: number; jobOwnerId?: string; language?: string } = {},
  ): Promise<{ turnId: string; userMessageId: string }> {
    const t = await this.store(thread, content);
    await this.bus.publish(t.chatId, t.turnId, { type: 'turn.queued', position: 1 });
    // `language` is written as given (also a value no API would send) to test the worker's check.
    const language =
      opts.language === undefined ? {} : { language: opts.language as RunTurnJobData['language'] };
    await this.queue.add(
      JobNames.runTurn,
      {
        turnId: t.turnId,
        chatId: t.chatId,
        ownerId: opts.jobOwnerId ?? t.ownerId,
        userMessageId: t.userMessageId,
        ...language,
      },
      { jobId: t.turnId, attempts: opts.attempts ?? 2, backoff: { type: 'fixed', delay: 100 } },
    );
    return { turnId: t.turnId, userMessageId: t.userMessageId };
  }

  /** The events of a turn received so far, in arrival order. */
  events(turnId: string): ChatEvent[] {
    return [...(this.eventsByTurn.get(turnId) ?? [])];
  }

  /** Waits until the turn has an event of `type` (default: any terminal one); returns it. */
  async waitForEvent(turnId: string, type?: ChatEventType, ms = 10_000): Promise<ChatEvent> {
    const terminal: ChatEventType[] = ['turn.done', 'turn.error', 'turn.cancelled'];
    return eventually(
      () => this.events(turnId).find((e) => (type ? e.type === type : terminal.includes(e.type))),
      ms,
      () =>
        `turn ${turnId}: a ${type ?? 'terminal'} event (got ${this.events(turnId)
          .map((e) => e.type)
          .join(', ')})`,
    );
  }

  /** Waits until the turn has `count` events of `type`; returns them. */
  async waitForEvents(turnId: string, type: ChatEventType, count: number, ms = 10_000): Promise<ChatEvent[]> {
    const found = () => this.events(turnId).filter((e) => e.type === type);
    return eventually(
      () => found().length >= count && found(),
      ms,
      () => `turn ${turnId}: ${count} ${type} (got ${found().length})`,
    );
  }

  /** The stored assistant messages of a turn. */
  async assistantMessages(turnId: string) {
    return this.db.dataSource.query(
      `SELECT id, content, status, metadata FROM chat_messages WHERE turn_id = $1 AND role = 'assistant'`,
      [turnId],
    ) as Promise<{ id: string; content: string; status: string; metadata: Record<string, unknown> }[]>;
  }

  async close(): Promise<void> {
    await Promise.all(this.unsubscribers.map((u) => u()));
    await this.subscriber.close();
    await this.cancels.close();
    await this.queue.obliterate({ force: true }).catch(() => undefined);
    await this.queue.close();
    const keys = await this.redis.keys(`${this.keys.root}:*`);
    if (keys.length) await this.redis.del(...keys);
    await closeRedis(this.redis);
    await this.db.drop();
  }
}

/** Asserts the events are a turn's whole chain in order: each names the one before as its `prev`. */
export function expectGapFree(events: ChatEvent[]): void {
  expect(events.map((e) => e.prev)).toEqual([NO_SEQ, ...events.slice(0, -1).map((e) => e.seq)]);
}
