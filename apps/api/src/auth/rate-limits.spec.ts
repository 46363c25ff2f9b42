import type { ExecutionContext } from '@nestjs/common';
import type { ThrottlerOptions } from '@nestjs/throttler';
import Redis from 'ioredis';
import { loadAuthEnv } from './auth.env';
import { MessageRateLimit, Throttlers, throttlerOptions } from './rate-limits';

class Routes {
  @MessageRateLimit()
  post(): void {}
  list(): void {}
}
const ctx = (handler: keyof Routes) => ({ getHandler: () => Routes.prototype[handler] }) as unknown as ExecutionContext;

// Never connects: the storage is built but not used here.
const redis = new Redis({ lazyConnect: true });
afterAll(() => redis.disconnect());

/** The throttlers that count a request to `handler` (not skipped). */
function counting(env: Record<string, string>, handler: keyof Routes): string[] {
  const options = throttlerOptions(loadAuthEnv({ NODE_ENV: 'test', ...env }), redis) as { throttlers: ThrottlerOptions[] };
  return options.throttlers.filter((t) => !t.skipIf?.(ctx(handler))).map((t) => t.name!);
}

describe('throttlerOptions', () => {
  it('counts a message route once, against the lower limit', () => {
    expect(counting({ MESSAGES_PER_MINUTE: '20', REQUESTS_PER_MINUTE: '600' }, 'post')).toEqual([Throttlers.messages]);
    expect(counting({ MESSAGES_PER_MINUTE: '600', REQUESTS_PER_MINUTE: '20' }, 'post')).toEqual([Throttlers.default]);
    // On a tie the general counter answered first before; it stays the one.
    expect(counting({ MESSAGES_PER_MINUTE: '50', REQUESTS_PER_MINUTE: '50' }, 'post')).toEqual([Throttlers.default]);
  });

  it('counts every other route against the general limit only', () => {
    expect(counting({ MESSAGES_PER_MINUTE: '20', REQUESTS_PER_MINUTE: '600' }, 'list')).toEqual([Throttlers.default]);
    expect(counting({ MESSAGES_PER_MINUTE: '600', REQUESTS_PER_MINUTE: '20' }, 'list')).toEqual([Throttlers.default]);
  });
});
