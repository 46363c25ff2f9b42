import { EventEmitter } from 'node:events';
import { ServiceUnavailableException, UnauthorizedException } from '@nestjs/common';
import type { Namespace } from 'socket.io';
import { SocketRefusals } from '@corpus-chat/contracts';
import type { AuthEnv } from './auth.env';
import type { AuthService } from './auth.service';
import { SocketAuthService } from './socket-auth.service';

/** The handshake middleware `attach` registers, run against a socket whose session check throws `error`. */
/** A namespace whose server's engine records upgrades that reach it, for `attach`. */
function attached(error: Error) {
  const auth = { verifySession: () => Promise.reject(error) } as unknown as AuthService;
  const service = new SocketAuthService(auth, {
    PUBLIC_ORIGIN: '',
    NODE_ENV: 'test',
    WEB_PORT: 4200,
  } as AuthEnv);
  let middleware: ((socket: unknown, next: (err?: Error) => void) => void) | undefined;
  const engine = {
    handleUpgrade: jest.fn() as (req: unknown, socket: unknown, head: Buffer) => void,
    opts: {} as {
      allowRequest?: (req: unknown, done: (message: string | null, allowed: boolean) => void) => void;
    },
  };
  const passedThrough = engine.handleUpgrade as jest.Mock;
  const nsp = {
    sockets: new Map(),
    server: { engine },
    use: (fn: typeof middleware) => (middleware = fn),
    on: () => undefined,
  } as unknown as Namespace;
  service.attach(nsp);
  return {
    middleware: () => middleware!,
    upgrade: engine.handleUpgrade,
    passedThrough,
    allowRequest: (req: unknown) =>
      new Promise<[string | null, boolean]>((resolve) =>
        engine.opts.allowRequest!(req, (m, ok) => resolve([m, ok])),
      ),
  };
}

async function refusalFor(error: Error): Promise<Error & { data?: { reason?: string } }> {
  const { middleware: get } = attached(error);
  const middleware = get();
  return new Promise((resolve) =>
    middleware({ request: { headers: {} }, data: {} }, (err) => resolve(err as Error)),
  );
}

describe('SocketAuthService handshake refusals', () => {
  it('refuses a missing or expired session as "unauthorized", with the reason', async () => {
    const err = await refusalFor(new UnauthorizedException('Your session has expired: sign in again.'));
    expect(err.message).toBe(SocketRefusals.unauthorized);
    expect(err.data?.reason).toBe('Your session has expired: sign in again.');
  });

  it('refuses as "unavailable" when the session cannot be checked (database down), so the client does not sign out', async () => {
    const err = await refusalFor(
      new ServiceUnavailableException('The database is unavailable right now. Try again in a moment.'),
    );
    expect(err.message).toBe(SocketRefusals.unavailable);
  });

  it.each([
    [new UnauthorizedException('Sign in first.'), 'HTTP/1.1 401 Unauthorized', 'unauthorized'],
    [
      new ServiceUnavailableException('The database is unavailable right now.'),
      'HTTP/1.1 503 Service Unavailable',
      'unavailable',
    ],
  ])(
    'refuses a WebSocket upgrade (%s) at the HTTP level and closes the socket',
    async (error, statusLine, body) => {
      const { upgrade, passedThrough } = attached(error);
      const socket = Object.assign(new EventEmitter(), {
        writable: true,
        write: jest.fn(),
        destroy: jest.fn(),
      });
      upgrade({ headers: {} }, socket, Buffer.alloc(0));
      // A reset while the session is checked is handled, not an uncaught error.
      expect(() => socket.emit('error', new Error('read ECONNRESET'))).not.toThrow();
      await new Promise((r) => setImmediate(r));
      const written = String(socket.write.mock.calls[0]?.[0] ?? '');
      expect(written.startsWith(statusLine)).toBe(true);
      expect(written.endsWith(`\r\n\r\n${body}`)).toBe(true);
      expect(socket.destroy).toHaveBeenCalled();
      expect(passedThrough).not.toHaveBeenCalled();
    },
  );

  it.each([
    [new UnauthorizedException('Sign in first.'), 'unauthorized'],
    [new ServiceUnavailableException('The database is unavailable right now.'), 'unavailable'],
  ])(
    'refuses a long-polling handshake (%s) through Engine.IO allowRequest with its reason',
    async (error, message) => {
      const { allowRequest } = attached(error);
      expect(await allowRequest({ headers: {} })).toEqual([message, false]);
    },
  );
});
