import { RequestMethod } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { withValidationSchemas } from './openapi-schemas';
import { Logger } from 'nestjs-pino';
import { AppModule } from './app.module';
import { applyHttpHardening } from './auth/http-hardening';
import { SESSION_COOKIE } from './auth/session-cookie';
import { applyTrustProxy } from './auth/trust-proxy';
import type { ApiEnv } from './config/api-env';
import { RedisIoAdapter } from './config/redis-io.adapter';
import { ClientErrorFilter } from './errors/client-error.filter';
import { ZodValidationPipe } from './errors/zod-validation.pipe';

export interface ConfigureAppOptions {
  /** Close cleanly on SIGTERM/SIGINT (the real process; tests close apps themselves). Default true. */
  shutdownHooks?: boolean;
}

/**
 * The API's global configuration, for `main.ts` and tests alike: logger, `/api` prefix (not
 * `/mcp`), `TRUST_PROXY`, HTTP hardening, strict validation, actionable client errors, OpenAPI at
 * `/api/docs`, Socket.IO with the Redis adapter, shutdown hooks.
 */
export function configureApp(
  app: NestExpressApplication,
  env: ApiEnv,
  options: ConfigureAppOptions = {},
): void {
  app.useLogger(app.get(Logger));
  // MCP clients are configured with the server's URL; `/mcp` is where they look by convention.
  app.setGlobalPrefix('api', { exclude: [{ path: 'mcp', method: RequestMethod.ALL }] });
  applyTrustProxy(app, env.TRUST_PROXY);
  applyHttpHardening(app);
  const errors = new ClientErrorFilter(app.getHttpAdapter(), { importMaxBytes: env.IMPORT_MAX_BYTES });
  app.use(errors.expressErrorHandler()); // errors of the body parsers and the docs guard, registered above
  app.useGlobalFilters(errors);
  app.useGlobalPipes(new ZodValidationPipe());
  const document = withValidationSchemas(
    SwaggerModule.createDocument(
      app,
      new DocumentBuilder()
        .setTitle('Corpus Chat API')
        .setDescription(
          'Threads, turns, reports and settings of Corpus Chat. Turn progress streams over Socket.IO (namespace /chat).',
        )
        .setVersion('0.1.0')
        .addCookieAuth(SESSION_COOKIE)
        .addBearerAuth({
          type: 'http',
          scheme: 'bearer',
          description: 'An API token (cc_pat_…, scope read) on the routes that accept one',
        })
        .build(),
    ),
  );
  SwaggerModule.setup('api/docs', app, document);
  app.useWebSocketAdapter(new RedisIoAdapter(app, env, env.REDIS_PREFIX));
  if (options.shutdownHooks ?? true) app.enableShutdownHooks();
}

/** Creates the API application for `env`, configured by `configureApp` (call `listen` next). */
export async function createApiApp(
  env: ApiEnv,
  options: ConfigureAppOptions = {},
): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(env), { bufferLogs: true });
  configureApp(app, env, options);
  return app;
}
