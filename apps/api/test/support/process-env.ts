import crypto from 'node:crypto';
import { testDataDir, testRedisPrefix } from '@corpus-chat/persistence/testing';

/**
 * Environment of an API or worker child process of one test deployment: the test's own database,
 * a fresh Redis prefix, JWT secret and data folder, info-level logs, migrations already run.
 * Spread `extra` over it for ports and the like.
 */
export function testProcessEnv(databaseUrl: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    DATABASE_URL: databaseUrl,
    REDIS_PREFIX: testRedisPrefix(),
    JWT_SECRET: crypto.randomBytes(32).toString('hex'),
    DATA_DIR: testDataDir(),
    RUN_MIGRATIONS: '0',
    ...extra,
  };
}
