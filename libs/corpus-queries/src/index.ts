/** The corpus: entities, migrations, importers, read-only queries and the corpus tools, once. */
export * from './entities';
export * from './data-source';
export * from './database-admin';
export * from './operators';
export * from './settings';
export * from './chat';
export * from './corpus';
export * from './audit';
export * from './webhooks';
export * from './triage';
export * from './importers';
export * from './pdf-reports';
export * from './queries';
export * from './tools';
export * from './generator';
