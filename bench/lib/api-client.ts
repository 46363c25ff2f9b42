import { randomUUID } from 'node:crypto';
import { Pool } from 'undici';
import { io, type Socket } from 'socket.io-client';
import {
  CHAT_NAMESPACE,
  type ChatEvent,
  type ChatSummaryView,
  type JoinChatAck,
  type PostMessageResponse,
  SocketEvents,
  type UpdateSettingsDto,
} from '@corpus-chat/contracts';
import { nowMs } from './stats';

const pools = new Map<string, Pool>();

/** One keep-alive connection pool per API base URL, shared by every session of the harness. */
export function poolFor(baseUrl: string): Pool {
  let pool = pools.get(baseUrl);
  if (!pool) pools.set(baseUrl, (pool = new Pool(baseUrl, { connections: 256, keepAliveTimeout: 60_000 })));
  return pool;
}

/** Closes every pool (end of a run). */
export async function closePools(): Promise<void> {
  await Promise.all([...pools.values()].map((p) => p.close()));
  pools.clear();
}

/**
 * A signed-in operator talking to the API like the web client does: the session cookie from
 * `POST /api/auth/login`, the CSRF header on every state-changing request, Socket.IO on `/chat`
 * with the same cookie.
 */
export class ApiSession {
  private constructor(
    readonly baseUrl: string,
    readonly cookie: string,
  ) {}

  /** Signs in; throws on refusal. */
  static async login(baseUrl: string, username: string, password: string): Promise<ApiSession> {
    const res = await poolFor(baseUrl).request({
      path: '/api/auth/login',
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-requested-with': 'XMLHttpRequest' },
      body: JSON.stringify({ username, password }),
    });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`login: HTTP ${res.statusCode} ${text.slice(0, 300)}`);
    const setCookie = res.headers['set-cookie'];
    const first = (Array.isArray(setCookie) ? setCookie[0] : setCookie) ?? '';
    return new ApiSession(baseUrl, first.split(';')[0]);
  }

  /** One JSON request; resolves with the parsed body of a 2xx answer, throws otherwise. */
  async request<T>(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    body?: unknown,
  ): Promise<T> {
    const res = await poolFor(this.baseUrl).request({
      path,
      method,
      headers: {
        cookie: this.cookie,
        'x-requested-with': 'XMLHttpRequest',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    if (res.statusCode < 200 || res.statusCode > 299)
      throw new Error(`${method} ${path}: HTTP ${res.statusCode} ${text.slice(0, 300)}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  createChat(title = 'bench'): Promise<ChatSummaryView> {
    return this.request('POST', '/api/chats', { title });
  }

  postMessage(chatId: string, content: string, clientMessageId?: string): Promise<PostMessageResponse> {
    return this.request('POST', `/api/chats/${chatId}/messages`, {
      content,
      ...(clientMessageId ? { clientMessageId } : {}),
    });
  }

  putSettings(dto: UpdateSettingsDto): Promise<unknown> {
    return this.request('PUT', '/api/settings', dto);
  }

  /** Creates an operator (this session being an admin's) and signs it in. */
  async newOperator(username: string): Promise<ApiSession> {
    const password = `pw-${randomUUID()}`;
    await this.request('POST', '/api/operators', {
      username,
      displayName: username,
      password,
      role: 'operator',
    });
    return ApiSession.login(this.baseUrl, username, password);
  }

  /** The same signed-in session at another address of the API (a restarted one). */
  at(baseUrl: string): ApiSession {
    return new ApiSession(baseUrl, this.cookie);
  }

  /** A connected Socket.IO client on `/chat` (websocket transport, no reconnection). */
  async connectSocket(): Promise<Socket> {
    const socket = io(`${this.baseUrl}${CHAT_NAMESPACE}`, {
      transports: ['websocket'],
      extraHeaders: { cookie: this.cookie },
      reconnection: false,
      forceNew: true,
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('connect_error', (e) => reject(new Error(`socket connect: ${e.message}`)));
    });
    return socket;
  }
}

/** Joins a thread on `socket`; throws when the gateway refuses. */
export async function joinChat(socket: Socket, chatId: string): Promise<void> {
  const ack = (await socket.timeout(10_000).emitWithAck(SocketEvents.join, { chatId })) as JoinChatAck;
  if (!ack.ok) throw new Error(`join ${chatId}: ${ack.error}`);
}

/** Calls `handler` with every `chat:event` the socket receives. */
export function onChatEvent(socket: Socket, handler: (event: ChatEvent) => void): void {
  socket.on(SocketEvents.event, handler);
}

/** A turn's terminal event and when the client received it (`nowMs`). */
export interface TurnEnd {
  type: string;
  at: number;
}

/**
 * Follows turn ends on `socket` (calling `onEvent` first with every event and its receipt time)
 * and returns a wait for one turn's end; an end that arrives before the POST's answer is read is
 * kept until asked for.
 */
export function turnEnds(
  socket: Socket,
  onEvent?: (e: ChatEvent, at: number) => void,
): (turnId: string, timeoutMs: number) => Promise<TurnEnd> {
  const ends = new Map<string, TurnEnd>();
  const waiters = new Map<string, () => void>();
  onChatEvent(socket, (e) => {
    const at = nowMs();
    onEvent?.(e, at);
    if (e.type !== 'turn.done' && e.type !== 'turn.error' && e.type !== 'turn.cancelled') return;
    ends.set(e.turnId, { type: e.type, at });
    waiters.get(e.turnId)?.();
  });
  return (turnId, timeoutMs) =>
    new Promise<TurnEnd>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.delete(turnId);
        reject(new Error(`turn ${turnId}: no end within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      const check = () => {
        const end = ends.get(turnId);
        if (!end) return;
        clearTimeout(timer);
        waiters.delete(turnId);
        ends.delete(turnId);
        resolve(end);
      };
      waiters.set(turnId, check);
      check();
    });
}
