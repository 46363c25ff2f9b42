import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HealthController } from './health.controller';
import { RedisHealthIndicator } from './redis.health';

/** `GET /api/health`. Needs the global `ApiCoreModule` (TypeORM, `REDIS_CLIENT`). */
@Module({
  imports: [TerminusModule.forRoot({ errorLogStyle: 'pretty', logger: false })],
  controllers: [HealthController],
  providers: [RedisHealthIndicator],
})
export class HealthModule {}
