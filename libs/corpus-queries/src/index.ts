/**
 * The corpus: TypeORM entities and migrations, importers, and the read-only query functions the
 * agent's tools and the API call. Query logic lives here once.
 */
export * from './entities';
export * from './data-source';
export * from './database-admin';
export * from './operators';
export * from './settings';
export * from './chat';
export * from './corpus';
export * from './audit';
export * from './triage';
export * from './importers';
export * from './queries';
export * from './generator';
