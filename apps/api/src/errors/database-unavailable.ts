import { ServiceUnavailableException } from '@nestjs/common';

/**
 * The 503 for a statement that got no pooled connection in time (node-postgres'
 * `connectionTimeoutMillis`, `DB_ACQUIRE_TIMEOUT_MS`) or found Postgres unreachable.
 */
export function databaseUnavailable(e: unknown): ServiceUnavailableException {
  const busy = /timeout exceeded when trying to connect/i.test(String((e as Error | undefined)?.message));
  return new ServiceUnavailableException(
    busy
      ? 'The database is busy (every connection is in use); try again in a moment.'
      : 'The database is unavailable right now; try again in a moment.',
  );
}
