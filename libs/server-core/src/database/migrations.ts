import { Logger } from '@nestjs/common';
import { DataSource, type DataSourceOptions } from 'typeorm';

/** Advisory lock key shared by every process that migrates (any 64-bit number unique to this purpose). */
const MIGRATION_LOCK_KEY = 7_274_310_001;

/**
 * Runs pending migrations under a Postgres advisory lock, so processes starting together migrate
 * one after the other. Returns the names it ran.
 */
export async function runMigrationsExclusively(dataSource: DataSource): Promise<string[]> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      const ran = await dataSource.runMigrations({ transaction: 'each' });
      return ran.map((m) => m.name);
    } finally {
      await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    await runner.release();
  }
}

/**
 * `dataSourceFactory` for `TypeOrmModule.forRootAsync`: initialises the DataSource and, when
 * `migrate` is true (`RUN_MIGRATIONS=1`), runs pending migrations under the advisory lock.
 */
export function migratingDataSourceFactory(migrate: boolean) {
  return async (options?: DataSourceOptions): Promise<DataSource> => {
    if (!options) throw new Error('TypeORM options missing');
    const dataSource = await new DataSource(options).initialize();
    if (migrate) {
      const ran = await runMigrationsExclusively(dataSource);
      if (ran.length) new Logger('Migrations').log(`ran ${ran.join(', ')}`);
    }
    return dataSource;
  };
}
