/**
 * The corpus: TypeORM entities and migrations, importers, the read-only query functions, and the
 * corpus tools (schemas, validation, read-only execution, formatting) that the chat's agent and the
 * API's MCP server both serve. Query logic lives here once.
 */
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
