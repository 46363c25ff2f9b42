import { ServiceUnavailableException, UnauthorizedException } from '@nestjs/common';
import type { Namespace } from 'socket.io';
import { SocketRefusals } from '@corpus-chat/contracts';
import type { AuthEnv } from './auth.env';
import type { AuthService } from './auth.service';
import { SocketAuthService } from './socket-auth.service';

/** The handshake middleware `attach` registers, run against a socket whose session check throws `error`. */
async function refusalFor(error: Error): Promise<Error & { data?: { reason?: string } }> {
  const auth = { verifySession: () => Promise.reject(error) } as unknown as AuthService;
  const service = new SocketAuthService(auth, {} as AuthEnv, {} as never);
  let middleware: ((socket: unknown, next: (err?: Error) => void) => void) | undefined;
  const nsp = {
    sockets: new Map(),
    server: { engine: { handleUpgrade: () => undefined } },
    use: (fn: typeof middleware) => (middleware = fn),
    on: () => undefined,
  } as unknown as Namespace;
  service.attach(nsp);
  return new Promise((resolve) => middleware!({ request: { headers: {} }, data: {} }, (err) => resolve(err as Error)));
}

describe('SocketAuthService handshake refusals', () => {
  it('refuses a missing or expired session as "unauthorized", with the reason', async () => {
    const err = await refusalFor(new UnauthorizedException('Your session has expired: sign in again.'));
    expect(err.message).toBe(SocketRefusals.unauthorized);
    expect(err.data?.reason).toBe('Your session has expired: sign in again.');
  });

  it('refuses as "unavailable" when the session cannot be checked (database down), so the client does not sign out', async () => {
    const err = await refusalFor(new ServiceUnavailableException('The database is unavailable right now. Try again in a moment.'));
    expect(err.message).toBe(SocketRefusals.unavailable);
  });
});
