import 'reflect-metadata';
import crypto from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { createApiApp } from '../../src/app.setup';
import { type ApiEnv, loadApiEnv } from '../../src/config/api-env';

/** A running API (the real `AppModule`, configured like `main.ts`) on a free port. */
export interface RunningApi {
  app: NestExpressApplication;
  baseUrl: string;
  env: ApiEnv;
}

/**
 * Starts the real API on 127.0.0.1:0 against database `dbUrl`, with a Redis prefix, JWT secret and
 * data folder of its own unless `overrides` sets them (pass the same REDIS_PREFIX and JWT_SECRET to
 * start a second instance of one deployment). Close with `app.close()`.
 */
export async function startApi(dbUrl: string, overrides: Record<string, string> = {}): Promise<RunningApi> {
  const env = loadApiEnv({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATABASE_URL: dbUrl,
    REDIS_PREFIX: `cc-test-${crypto.randomUUID()}`,
    JWT_SECRET: crypto.randomBytes(32).toString('hex'),
    DATA_DIR: path.join(os.tmpdir(), `cc-test-${crypto.randomUUID()}`),
    RUN_MIGRATIONS: '0',
    ...overrides,
  });
  const app = await createApiApp(env, { shutdownHooks: false });
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as { port: number };
  return { app, baseUrl: `http://127.0.0.1:${port}`, env };
}

/** Every route (not middleware mount) Express serves under `prefix`, as `METHOD /path` (e.g. `POST /api/chats/:id/messages`). */
export function listRoutes(app: NestExpressApplication, prefix: string): string[] {
  const express = app.getHttpAdapter().getInstance() as {
    router: { stack: { route?: { path: string; methods: Record<string, boolean> } }[] };
  };
  const routes = new Set<string>();
  for (const layer of express.router.stack) {
    if (!layer.route || !layer.route.path.startsWith(prefix)) continue;
    // `all()` layers (Nest's middleware mounts and not-found handling) list every verb, ACL included.
    if (layer.route.methods['acl']) continue;
    for (const [method, on] of Object.entries(layer.route.methods)) {
      if (on && method !== '_all') routes.add(`${method.toUpperCase()} ${layer.route.path}`);
    }
  }
  return [...routes].sort();
}

/** The client → server event names a gateway class handles (its `@SubscribeMessage` handlers). */
export function listGatewayEvents(gateway: Function): string[] {
  const proto = gateway.prototype as Record<string, unknown>;
  const events: string[] = [];
  for (const name of Object.getOwnPropertyNames(proto)) {
    const handler = proto[name];
    if (typeof handler !== 'function') continue;
    if (Reflect.getMetadata('websockets:message_mapping', handler)) events.push(String(Reflect.getMetadata('message', handler)));
  }
  return events.sort();
}
