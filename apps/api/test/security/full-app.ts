import 'reflect-metadata';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { ApiEnv } from '../../src/config/api-env';
import { type ApiInstance, newDeployment, startApiInstance } from '../support/chat-harness';

/** A running API (the real `AppModule`, configured like `main.ts`) on a free port. */
export type RunningApi = ApiInstance;

/**
 * Starts the real API on 127.0.0.1:0 against database `dbUrl` as a deployment of its own (Redis
 * prefix, JWT secret), with the product's default per-operator limits unless `overrides` sets them
 * (pass the same REDIS_PREFIX and JWT_SECRET to start a second instance of one deployment).
 */
export async function startApi(dbUrl: string, overrides: Record<string, string> = {}): Promise<RunningApi> {
  const defaults = new ApiEnv();
  const { REDIS_PREFIX, JWT_SECRET, ...env } = overrides;
  const deployment = newDeployment();
  return startApiInstance({
    databaseUrl: dbUrl,
    redisPrefix: REDIS_PREFIX ?? deployment.redisPrefix,
    jwtSecret: JWT_SECRET ?? deployment.jwtSecret,
    env: {
      MESSAGES_PER_MINUTE: String(defaults.MESSAGES_PER_MINUTE),
      MAX_ACTIVE_TURNS_PER_OPERATOR: String(defaults.MAX_ACTIVE_TURNS_PER_OPERATOR),
      REQUESTS_PER_MINUTE: String(defaults.REQUESTS_PER_MINUTE),
      ...env,
    },
  });
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
    if (Reflect.getMetadata('websockets:message_mapping', handler))
      events.push(String(Reflect.getMetadata('message', handler)));
  }
  return events.sort();
}
