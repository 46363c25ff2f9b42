import { type DynamicModule, Inject, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { APP_GUARD, APP_PIPE } from '@nestjs/core';
import { JwtService } from '@nestjs/jwt';
import { ThrottlerModule } from '@nestjs/throttler';
import { type RedisClient, waitUntilReady } from '@corpus-chat/server-core';
import { AUTH_ENV, type AuthEnv, loadAuthEnv } from './auth.env';
import { AUTH_REDIS, createAuthRedis } from './auth.redis';
import { ApiTokensController } from './api-tokens.controller';
import { ApiTokensService } from './api-tokens.service';
import { AuthController } from './auth.controller';
import { AuthGuard } from './auth.guard';
import { AuthService } from './auth.service';
import { resolveJwtSecret } from './dev-secrets';
import { createSessionJwtService } from './session-jwt';
import { RejectNulPipe } from './http-hardening';
import { LoginThrottleService } from './login-throttle.service';
import { OperatorThrottlerGuard, throttlerOptions } from './rate-limits';
import { SessionsController } from './sessions.controller';
import { SessionsService } from './sessions.service';
import { SocketAuthService } from './socket-auth.service';
import { TurnQuotaService } from './turn-quota.service';

/** Closes the auth layer's Redis connection after every module has shut down. */
@Injectable()
class AuthRedisCloser implements OnApplicationShutdown {
  constructor(@Inject(AUTH_REDIS) private readonly redis: RedisClient) {}
  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

/** The validated settings and the Redis connection, shared by `AuthModule` and its `ThrottlerModule`. */
@Module({})
class AuthInfraModule {
  static forRoot(env?: AuthEnv): DynamicModule {
    return {
      module: AuthInfraModule,
      providers: [
        { provide: AUTH_ENV, useFactory: () => env ?? loadAuthEnv() },
        {
          provide: AUTH_REDIS,
          inject: [AUTH_ENV],
          useFactory: async (e: AuthEnv) => {
            const redis = createAuthRedis(e);
            // Start-up goes on after 5 s without Redis; commands fail until it connects.
            await waitUntilReady(redis, 5000);
            return redis;
          },
        },
        AuthRedisCloser,
      ],
      exports: [AUTH_ENV, AUTH_REDIS],
    };
  }
}

/**
 * Sessions, API tokens and the API's guard rails (global): `AuthGuard` then
 * `OperatorThrottlerGuard`, and `RejectNulPipe` (NUL → 400). `env` defaults to `loadAuthEnv()`.
 */
@Module({})
export class AuthModule {
  static forRoot(env?: AuthEnv): DynamicModule {
    const infra = AuthInfraModule.forRoot(env);
    return {
      module: AuthModule,
      global: true,
      imports: [
        infra,
        ThrottlerModule.forRootAsync({
          imports: [infra],
          inject: [AUTH_ENV, AUTH_REDIS],
          useFactory: (e: AuthEnv, redis: RedisClient) => throttlerOptions(e, redis),
        }),
      ],
      controllers: [AuthController, SessionsController, ApiTokensController],
      providers: [
        {
          provide: JwtService,
          inject: [AUTH_ENV],
          useFactory: (e: AuthEnv) =>
            createSessionJwtService(resolveJwtSecret(e), e.SESSION_TTL_MINUTES * 60),
        },
        AuthService,
        ApiTokensService,
        LoginThrottleService,
        SocketAuthService,
        SessionsService,
        TurnQuotaService,
        { provide: APP_GUARD, useClass: AuthGuard },
        { provide: APP_GUARD, useClass: OperatorThrottlerGuard },
        { provide: APP_PIPE, useClass: RejectNulPipe },
      ],
      exports: [infra, AuthService, SessionsService, SocketAuthService, TurnQuotaService],
    };
  }
}
