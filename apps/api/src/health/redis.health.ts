import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { REDIS_CLIENT, type RedisClient, withTimeout } from '@corpus-chat/server-core';

/** Terminus indicator: Redis answers PING within a second on the API's command connection. */
@Injectable()
export class RedisHealthIndicator {
  constructor(
    private readonly indicator: HealthIndicatorService,
    @Inject(REDIS_CLIENT) private readonly redis: RedisClient,
  ) {}

  async isHealthy(key: string) {
    const check = this.indicator.check(key);
    try {
      await withTimeout(this.redis.ping(), 1000, 'PING');
      return check.up();
    } catch {
      // A fixed sentence: the probe is public, and the client's error names the Redis address.
      return check.down({ message: 'Redis did not answer PING within 1 s' });
    }
  }
}
