/**
 * The API process. Validates settings, checks Postgres and Redis, creates the database when
 * migrating, then serves HTTP and Socket.IO; a bad setting or busy port exits 1 naming it.
 */
import 'reflect-metadata';
import { ensureDatabase } from '@corpus-chat/persistence';
import {
  ConfigError,
  exitIfShutdownHangs,
  failStartup,
  createRedisConnection,
  closeRedis,
  listenErrorMessage,
  traceProcess,
  waitUntilReady,
} from '@corpus-chat/server-core';
import { createApiApp } from './app.setup';
import { warmHttpPath } from './health/http-warmup';
import { type ApiEnv, loadApiEnv } from './config/api-env';

async function checkDependencies(env: ApiEnv): Promise<void> {
  try {
    if (env.RUN_MIGRATIONS === 1) await ensureDatabase(env.DATABASE_URL);
  } catch (e) {
    failStartup(
      `Postgres is not reachable at DATABASE_URL (${redactUrl(env.DATABASE_URL)}): ${(e as Error).message}`,
    );
  }
  const redis = createRedisConnection(env, 'api:preflight', 'fail-fast');
  const ready = await waitUntilReady(redis, 5000);
  await closeRedis(redis);
  const where = env.REDIS_CLUSTER_NODES
    ? `REDIS_CLUSTER_NODES (${env.REDIS_CLUSTER_NODES})`
    : `REDIS_URL (${redactUrl(env.REDIS_URL)})`;
  if (!ready)
    failStartup(`Redis is not reachable at ${where}. Start it (e.g. \`redis-server\`) and try again.`);
}

/** The URL without its password, for messages. */
function redactUrl(url: string): string {
  const u = URL.parse(url);
  if (u?.password) u.password = '***';
  return u?.toString() ?? '(unparseable URL)';
}

async function main(): Promise<void> {
  traceProcess('corpus-chat-api');
  let env: ApiEnv;
  try {
    env = loadApiEnv();
  } catch (e) {
    if (e instanceof ConfigError) failStartup(e.message);
    throw e;
  }
  await checkDependencies(env);
  const app = await createApiApp(env);
  exitIfShutdownHangs(15_000);
  // Warmed (here and by `ChatWarmup` in init) before the port opens: the health check answers only then.
  await app.init();
  await warmHttpPath(app).catch((e: Error) => console.warn(`HTTP warm-up failed: ${e.message}`));
  try {
    await app.listen(env.API_PORT, env.API_HOST);
  } catch (e) {
    const message = listenErrorMessage(e, env.API_PORT, 'API_PORT');
    if (message) failStartup(message);
    if ((e as { code?: unknown }).code === 'EADDRNOTAVAIL') {
      failStartup(
        `address ${env.API_HOST} is not one of this machine (API_HOST): use 0.0.0.0 for every interface or 127.0.0.1`,
      );
    }
    throw e;
  }
  const address = app.getHttpServer().address() as { port: number };
  console.log(
    `Corpus Chat API listening on http://${env.API_HOST === '0.0.0.0' ? 'localhost' : env.API_HOST}:${address.port}/api (docs: /api/docs)`,
  );
}

main().catch((e: unknown) => {
  if (e instanceof ConfigError) failStartup(e.message);
  console.error(e);
  process.exit(1);
});
