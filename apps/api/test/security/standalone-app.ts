import crypto from 'node:crypto';
import { Controller, Get, HttpCode, Module, Post } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import {
  ConnectedSocket,
  type OnGatewayInit,
  SubscribeMessage,
  WebSocketGateway,
  WebSocketServer,
} from '@nestjs/websockets';
import type { Namespace, Socket } from 'socket.io';
import { CHAT_NAMESPACE } from '@corpus-chat/contracts';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { TypeOrmModule } from '@nestjs/typeorm';
import { dataSourceOptions } from '@corpus-chat/persistence';
import { AuthModule } from '../../src/auth/auth.module';
import { loadAuthEnv, type AuthEnv } from '../../src/auth/auth.env';
import { applyHttpHardening } from '../../src/auth/http-hardening';
import { applyTrustProxy } from '../../src/auth/trust-proxy';
import { RedisIoAdapter } from '../../src/config/redis-io.adapter';
import { Public } from '../../src/auth/auth.decorators';
import { CurrentOperator, type AuthenticatedOperator } from '../../src/auth/current-operator';
import { ZodValidationPipe } from '../../src/errors/zod-validation.pipe';
import { OperatorsModule } from '../../src/operators/operators.module';
import { SocketAuthService } from '../../src/auth/socket-auth.service';
import { testDataDir, testRedisPrefix } from '@corpus-chat/persistence/testing';

/** A `/chat` gateway with the socket auth attached and one `whoami` event (answers `socket.data.operator`). */
@WebSocketGateway({ namespace: CHAT_NAMESPACE })
export class ProbeGateway implements OnGatewayInit {
  @WebSocketServer()
  server!: Namespace;

  constructor(private readonly socketAuth: SocketAuthService) {}
  afterInit(server: Namespace): void {
    this.socketAuth.attach(server);
  }
  @SubscribeMessage('whoami')
  whoami(@ConnectedSocket() socket: Socket): unknown {
    return socket.data.operator;
  }
}

@Controller('probe')
export class ProbeController {
  @Public()
  @Get('public')
  open(): { ok: true } {
    return { ok: true };
  }

  @Post('message')
  @HttpCode(202)
  message(@CurrentOperator() operator: AuthenticatedOperator): { operatorId: string } {
    return { operatorId: operator.id };
  }
}

/**
 * The auth and operators modules alone (plus a probe `/chat` gateway that attaches the socket auth) in a Nest app on port 0 (database `dbUrl`, a Redis prefix
 * of its own), configured like the real API: `/api` prefix, `trust proxy`, strict validation, HTTP
 * hardening, the Socket.IO Redis adapter.
 */
export async function startAuthOnlyApp(
  dbUrl: string,
  overrides: Record<string, string> = {},
): Promise<{
  app: NestExpressApplication;
  baseUrl: string;
  env: AuthEnv;
}> {
  const env = loadAuthEnv({
    NODE_ENV: 'test',
    DATABASE_URL: dbUrl,
    REDIS_PREFIX: testRedisPrefix(),
    JWT_SECRET: crypto.randomBytes(32).toString('hex'),
    DATA_DIR: testDataDir(),
    // As in `startApiInstance`: the tests check the hashing, not its cost.
    PASSWORD_HASH_MEMORY_KIB: '4096',
    ...overrides,
  });
  @Module({
    imports: [TypeOrmModule.forRoot(dataSourceOptions(dbUrl)), AuthModule.forRoot(env), OperatorsModule],
    controllers: [ProbeController],
    providers: [ProbeGateway],
  })
  class AuthOnlyModule {}
  const moduleRef = await Test.createTestingModule({ imports: [AuthOnlyModule] }).compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>({ logger: ['error'] });
  app.setGlobalPrefix('api');
  applyTrustProxy(app, env.TRUST_PROXY);
  applyHttpHardening(app);
  app.useGlobalPipes(new ZodValidationPipe());
  // As in the API: instances sharing REDIS_PREFIX reach each other's sockets through the adapter.
  app.useWebSocketAdapter(new RedisIoAdapter(app, env.REDIS_URL, env.REDIS_PREFIX));
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as { port: number };
  return { app, baseUrl: `http://127.0.0.1:${port}`, env };
}
