/**
 * The contracts as the web client sees them (`apps/web` maps `@corpus-chat/contracts` here).
 * Every type of `index.ts`, but runtime values only from files that do not load zod or JSON
 * schemas: the DTO classes and argument schemas are validation code the browser never runs.
 */
export * from './corpus/corpus.types';
export type * from './corpus/scan-comparison';
export type * from './corpus/scan-comparison.dto';
export * from './corpus/import-jobs';
export * from './corpus/import-formats';
export type * from './chat/chat-attachments';
export * from './tools/tools';
export * from './triage/triage.types';
export * from './events/chat-events';
export type * from './events/turn-activity';
export * from './jobs/jobs';
export * from './health';
export * from './operators/csrf';
export * from './operators/operator-roles';
export * from './settings/base-url';
export type * from './corpus/corpus.dto';
export type * from './corpus/finding-query.schema';
export type * from './triage/triage.dto';
export type * from './pdf-reports/pdf-reports.dto';
export type * from './chat/chat.dto';
export * from './feedback/feedback.types';
export type * from './feedback/feedback.dto';
export type * from './settings/settings.dto';
export type * from './operators/operators.dto';
export type * from './operators/api-tokens.dto';
export * from './webhooks/webhooks.types';
export type * from './webhooks/webhooks.dto';
export type * from './native-report/native-report';
