import path from 'node:path';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { ALL_ENTITIES } from './entities';

/** Migrations run by the apps at start (unless skipped) and by `npm run migration:run`. */
export const MIGRATIONS_GLOB = path.join(__dirname, 'migrations', '*.{ts,js}');

/**
 * TypeORM options for Postgres at `url` (e.g. `postgres://postgres@127.0.0.1:5432/corpus_chat`).
 * `synchronize` is always off: the schema comes from migrations only. Connections run with JIT
 * compilation off: the corpus queries are short, and compiling a plan costs more (20–40 ms) than
 * it saves. `parallel_setup_cost` is raised from 1000 to 10000: starting parallel workers cost
 * 15–25 ms per query on a 2-core host, so a count of ~10,000 matching findings ran twice as fast
 * without them (14–20 ms against 37–42 ms at 1M findings), while counts of 100,000+ matches still
 * go parallel. A session idle inside a transaction for a minute is ended by Postgres, so a
 * transaction leaked by a bug or held by a stalled client gives its connection back to the pool.
 * `extra.extra` given by the caller is merged into these pool settings (e.g. node-postgres'
 * `connectionTimeoutMillis`, how long a query waits for a pooled connection).
 */
export function dataSourceOptions(url: string, extra: Partial<DataSourceOptions> = {}): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities: ALL_ENTITIES,
    migrations: [MIGRATIONS_GLOB],
    migrationsTableName: 'typeorm_migrations',
    synchronize: false,
    // Off: TypeORM would print every failed statement with its parameters (an operator's message,
    // a finding's text) on the console, expected conflicts (409) included; the apps log the
    // errors they do not handle themselves, structured (Nest's exception filter, the job processors).
    logging: false,
    ...extra,
    extra: {
      max: 10,
      options: '-c jit=off -c parallel_setup_cost=10000 -c idle_in_transaction_session_timeout=60000',
      ...(extra as { extra?: Record<string, unknown> }).extra,
    },
  } as DataSourceOptions;
}

/** Creates (not initialises) a DataSource for `url`. */
export function createDataSource(url: string, extra: Partial<DataSourceOptions> = {}): DataSource {
  return new DataSource(dataSourceOptions(url, extra));
}
