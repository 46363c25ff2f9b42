import path from 'node:path';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { ALL_ENTITIES } from './entities';

/** Migrations run by the apps at start (unless skipped) and by `npm run migration:run`. */
export const MIGRATIONS_GLOB = path.join(__dirname, 'migrations', '*.{ts,js}');

/**
 * TypeORM options for Postgres at `url`; the schema comes from migrations only. JIT is off and
 * `parallel_setup_cost` raised for these short queries (docs/benchmarks.md); an idle-in-transaction
 * session is ended after a minute so a leaked transaction frees its connection. `extra.extra` is
 * merged into the pool settings.
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
