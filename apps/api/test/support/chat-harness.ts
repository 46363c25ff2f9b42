import { randomBytes } from 'node:crypto';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Socket } from 'socket.io-client';
import type { DataSource } from 'typeorm';
import {
  type ChatEvent,
  type ChatEventType,
  compareSeq,
  type JoinChatAck,
  NO_SEQ,
  SocketEvents,
  type ThreadUpdated,
  type TurnActivity,
} from '@corpus-chat/contracts';
import {
  createTestDatabase,
  insertTestOperator,
  testDataDir,
  testRedisPrefix,
  type TestDatabase,
} from '@corpus-chat/persistence/testing';
import { createApiApp } from '../../src/app.setup';
import { type ApiEnv, loadApiEnv } from '../../src/config/api-env';
import { connectChatSocket, loginAs, type LoginSession } from './login';

export interface ApiInstanceOptions {
  databaseUrl: string;
  /** The deployment's Redis prefix (instances of one deployment share it, and the JWT secret). */
  redisPrefix: string;
  jwtSecret: string;
  redisUrl?: string;
  /** More settings as environment strings. */
  env?: Record<string, string>;
}

/** A running API instance on 127.0.0.1 with a free port. */
export interface ApiInstance {
  app: NestExpressApplication;
  baseUrl: string;
  env: ApiEnv;
  close(): Promise<void>;
}

/** A deployment's shared test settings: its own Redis prefix and JWT secret. */
export function newDeployment(): { redisPrefix: string; jwtSecret: string } {
  return { redisPrefix: testRedisPrefix(), jwtSecret: randomBytes(32).toString('hex') };
}

/**
 * Starts the real API (`createApiApp`, as `main.ts` does, without signal handlers) with limits
 * high enough for tests that post many messages; `env` overrides anything.
 */
export async function startApiInstance(o: ApiInstanceOptions): Promise<ApiInstance> {
  const env = loadApiEnv({
    NODE_ENV: 'test',
    LOG_LEVEL: process.env['TEST_LOG_LEVEL'] ?? 'silent',
    DATABASE_URL: o.databaseUrl,
    REDIS_URL: o.redisUrl ?? process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379',
    REDIS_PREFIX: o.redisPrefix,
    JWT_SECRET: o.jwtSecret,
    DATA_DIR: testDataDir(),
    RUN_MIGRATIONS: '0',
    MESSAGES_PER_MINUTE: '10000',
    MAX_ACTIVE_TURNS_PER_OPERATOR: '100',
    REQUESTS_PER_MINUTE: '100000',
    CANCEL_WAIT_MS: '2000',
    // A test host under load can stall an event loop past the 3 s default, failing a healthy
    // command with 503; the hung-Redis spec sets its own short bound.
    REDIS_REQUEST_TIMEOUT_MS: '15000',
    // The default 64 MiB hash costs about half a second of CPU per sign-in; the tests check the
    // hashing, not its cost.
    PASSWORD_HASH_MEMORY_KIB: '4096',
    ...o.env,
  });
  const app = await createApiApp(env, { shutdownHooks: false });
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as { port: number };
  return { app, baseUrl: `http://127.0.0.1:${port}`, env, close: () => app.close() };
}

/**
 * For a spec file: a database of its own and an API instance on it, started before its tests and
 * closed (the database dropped) after them. Read `db` and `api` inside tests and hooks.
 */
export function apiOnOwnDatabase(): { readonly db: TestDatabase; readonly api: ApiInstance } {
  let db: TestDatabase | undefined;
  let api: ApiInstance | undefined;
  beforeAll(async () => {
    db = await createTestDatabase();
    api = await startApiInstance({ databaseUrl: db.url, ...newDeployment() });
  }, 60_000);
  afterAll(async () => {
    await api?.close();
    await db?.drop();
  }, 60_000);
  const started = <T>(value: T | undefined): T => {
    if (value === undefined)
      throw new Error('apiOnOwnDatabase: read db and api inside tests and hooks, after beforeAll');
    return value;
  };
  return {
    get db() {
      return started(db);
    },
    get api() {
      return started(api);
    },
  };
}

/** Creates an operator in `ds` and signs it in on `api`. */
export async function signIn(api: ApiInstance, ds: DataSource): Promise<LoginSession> {
  const op = await insertTestOperator(ds);
  return loginAs(api.app, op.username, op.password);
}

/** Emits `event` and resolves with the server's ack (rejects after `ms`). */
export function emitWithAck<T>(socket: Socket, event: string, payload: unknown, ms = 5000): Promise<T> {
  return socket.timeout(ms).emitWithAck(event, payload) as Promise<T>;
}

/** A socket of `session` on `api`'s `/chat` namespace, collecting every `chat:event` it receives. */
export async function openChatSocket(api: ApiInstance, session: LoginSession): Promise<EventCollector> {
  return new EventCollector(await connectChatSocket(api.baseUrl, session));
}

/**
 * Collects a socket's `chat:event`s as the web client keeps them, and waits for them: a seq at or
 * below the thread's last one kept is dropped, and so is an event whose `prev` was not kept (the
 * thread is then joined again after its last seq, once no join of it is in flight).
 */
export class EventCollector {
  readonly events: ChatEvent[] = [];
  /** Every `chat:activity` and `chat:thread-updated` received (sent to all the operator's sockets). */
  readonly activities: TurnActivity[] = [];
  readonly threadUpdates: ThreadUpdated[] = [];
  /** Waiters of `until`, checked at every event that arrives. */
  private readonly waiters = new Set<() => void>();
  /** Per thread: the last seq kept, joins in flight, and whether an event was dropped behind a gap. */
  private readonly last = new Map<string, string>();
  private readonly joining = new Map<string, number>();
  private readonly behind = new Set<string>();

  constructor(readonly socket: Socket) {
    const keep =
      <T>(into: T[]) =>
      (payload: T) => {
        into.push(payload);
        for (const check of [...this.waiters]) check();
      };
    socket.on(SocketEvents.activity, keep(this.activities));
    socket.on(SocketEvents.threadUpdated, keep(this.threadUpdates));
    socket.on(SocketEvents.event, (e: ChatEvent) => {
      const last = this.last.get(e.chatId) ?? NO_SEQ;
      if (compareSeq(e.seq, last) <= 0) return;
      if (compareSeq(e.prev, last) > 0) {
        this.behind.add(e.chatId);
        if (!this.joining.get(e.chatId)) void this.join(e.chatId).catch(() => undefined);
        return;
      }
      this.last.set(e.chatId, e.seq);
      this.events.push(e);
      for (const check of [...this.waiters]) check();
    });
  }

  /**
   * Resolves with `pick()`'s first defined value, checked now and at every event that arrives;
   * rejects after `ms` with `describe()`.
   */
  until<T>(pick: () => T | undefined, ms: number, describe: () => string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      const check = () => {
        const found = pick();
        if (found !== undefined) {
          done();
          resolve(found);
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(describe()));
      }, ms);
      this.waiters.add(check);
      check();
    });
  }

  /** `chat:join` with its ack, after `afterSeq` (default: the last seq kept of the thread, if any). */
  async join(chatId: string, afterSeq = this.last.get(chatId)): Promise<JoinChatAck> {
    if (afterSeq) this.last.set(chatId, afterSeq);
    this.behind.delete(chatId);
    this.joining.set(chatId, (this.joining.get(chatId) ?? 0) + 1);
    try {
      return await emitWithAck<JoinChatAck>(
        this.socket,
        SocketEvents.join,
        afterSeq === undefined ? { chatId } : { chatId, afterSeq },
      );
    } finally {
      this.joining.set(chatId, this.joining.get(chatId)! - 1);
      if (!this.joining.get(chatId) && this.behind.has(chatId)) void this.join(chatId).catch(() => undefined);
    }
  }

  /** The events of one turn received so far. */
  forTurn(turnId: string): ChatEvent[] {
    return this.events.filter((e) => e.turnId === turnId);
  }

  /**
   * Waits until the turn has an event of `type` (default: a terminal one), or `count` events in
   * all; fails loudly after `ms` with what arrived.
   */
  async waitFor(
    turnId: string,
    what: ChatEventType | { count: number } | undefined = undefined,
    ms = 15_000,
  ): Promise<ChatEvent> {
    const terminal: ChatEventType[] = ['turn.done', 'turn.error', 'turn.cancelled'];
    return this.until(
      () => {
        const mine = this.forTurn(turnId);
        return what && typeof what === 'object'
          ? mine.length >= what.count
            ? mine[what.count - 1]
            : undefined
          : mine.find((e) => (what ? e.type === what : terminal.includes(e.type)));
      },
      ms,
      () =>
        `turn ${turnId}: waited ${ms} ms for ${JSON.stringify(what ?? 'a terminal event')}; got ${this.forTurn(
          turnId,
        )
          .map((e) => `${e.seq}:${e.type}`)
          .join(' ')}`,
    );
  }

  close(): void {
    this.socket.close();
  }
}

/** Asserts the events are a turn's whole chain in order: each names the one before as its `prev`. */
export function expectGapFree(events: ChatEvent[]): void {
  expect(events.map((e) => e.prev)).toEqual([NO_SEQ, ...events.slice(0, -1).map((e) => e.seq)]);
}
