import type { INestApplication } from '@nestjs/common';
import { io, type ManagerOptions, type Socket, type SocketOptions } from 'socket.io-client';
import request from 'supertest';
import { CHAT_NAMESPACE, CSRF_HEADER, CSRF_HEADER_VALUE, type OperatorView } from '@corpus-chat/contracts';

/** A signed-in test client: the session cookie and the headers every request should carry. */
export interface LoginSession {
  operator: OperatorView;
  /** `cc_session=<jwt>` as sent in a `Cookie` header. */
  cookie: string;
  /** `{ Cookie, 'X-Requested-With': 'XMLHttpRequest' }`: spread into supertest's `.set()` or fetch headers. */
  headers: Record<string, string>;
  /** The password it signed in with (minting an API token asks for it). */
  password: string;
}

/** The headers of a state-changing request without a session (CSRF header only). */
export const CSRF_HEADERS: Readonly<Record<string, string>> = { [CSRF_HEADER]: CSRF_HEADER_VALUE };

/**
 * Signs in through `POST /api/auth/login` on `target` (a Nest app, or a base URL such as
 * `http://127.0.0.1:34567`). Throws with the status and body when sign-in fails.
 */
export async function loginAs(
  target: INestApplication | string,
  username: string,
  password: string,
): Promise<LoginSession> {
  const server = typeof target === 'string' ? target : target.getHttpServer();
  const res = await request(server).post('/api/auth/login').set(CSRF_HEADERS).send({ username, password });
  if (res.status !== 200)
    throw new Error(`login as ${username} failed: ${res.status} ${JSON.stringify(res.body)}`);
  const setCookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
  const cookie = setCookie.map((c) => c.split(';')[0]).find((c) => c.startsWith('cc_session='));
  if (!cookie) throw new Error(`login as ${username} set no session cookie`);
  return {
    operator: res.body as OperatorView,
    cookie,
    headers: { Cookie: cookie, ...CSRF_HEADERS },
    password,
  };
}

/**
 * Opens a Socket.IO client on the `/chat` namespace of `baseUrl` carrying `session`'s cookie
 * (no session: an anonymous client). Reconnection is off; resolves once connected, rejects with the
 * `connect_error`. A handshake the server refuses before any session exists (HTTP long-polling:
 * Engine.IO answers 403 with `{"code":4,"message":…}`) rejects with `<message> (HTTP <status>)`,
 * e.g. "unauthorized (HTTP 403)"; one refused by the namespace with its message ("unauthorized").
 */
export function connectChatSocket(
  baseUrl: string,
  session: Pick<LoginSession, 'cookie'> | null,
  options: Partial<ManagerOptions & SocketOptions> = {},
): Promise<Socket> {
  const socket = io(`${baseUrl}${CHAT_NAMESPACE}`, {
    forceNew: true,
    reconnection: false,
    extraHeaders: session ? { cookie: session.cookie } : {},
    ...options,
  });
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket));
    socket.once(
      'connect_error',
      (err: Error & { description?: unknown; context?: { responseText?: string } }) => {
        socket.close();
        reject(handshakeRefusal(err));
      },
    );
  });
}

/** The server's reason inside a transport error (an HTTP refusal of the polling handshake), else `err`. */
function handshakeRefusal(
  err: Error & { description?: unknown; context?: { responseText?: string } },
): Error {
  if (typeof err.description !== 'number' || typeof err.context?.responseText !== 'string') return err;
  try {
    const body = JSON.parse(err.context.responseText) as { message?: unknown };
    if (typeof body.message !== 'string') return err;
    return Object.assign(new Error(`${body.message} (HTTP ${err.description})`), {
      status: err.description,
      cause: err,
    });
  } catch {
    return err;
  }
}
