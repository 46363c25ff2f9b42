import path from 'node:path';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { ALL_ENTITIES } from './entities';

/** Migrations run by the apps at start (unless skipped) and by `npm run migration:run`. */
export const MIGRATIONS_GLOB = path.join(__dirname, 'migrations', '*.{ts,js}');

/**
 * TypeORM options for Postgres at `url` (e.g. `postgres://postgres@127.0.0.1:5432/corpus_chat`).
 * `synchronize` is always off: the schema comes from migrations only.
 */
export function dataSourceOptions(url: string, extra: Partial<DataSourceOptions> = {}): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities: ALL_ENTITIES,
    migrations: [MIGRATIONS_GLOB],
    migrationsTableName: 'typeorm_migrations',
    synchronize: false,
    logging: ['error'],
    extra: { max: 10 },
    ...extra,
  } as DataSourceOptions;
}

/** Creates (not initialises) a DataSource for `url`. */
export function createDataSource(url: string, extra: Partial<DataSourceOptions> = {}): DataSource {
  return new DataSource(dataSourceOptions(url, extra));
}
