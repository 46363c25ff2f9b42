/**
 * Storage: entities, migrations, the data source, and the stores of chats, operators, settings,
 * audit and webhooks.
 */
export * from './entities';
export * from './data-source';
export * from './database-admin';
export * from './corpus';
export * from './operators';
export * from './settings';
export * from './chat';
export { storableText } from './chat/storable';
export * from './audit';
export * from './webhooks';
