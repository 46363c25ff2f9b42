/**
 * Types shared by the API, the agent-worker and the web client. Nothing here may import Node-only
 * modules or anything else of ours.
 */
export * from './corpus/corpus.types';
export type * from './corpus/scan-comparison';
export * from './corpus/scan-comparison.dto';
export * from './corpus/corpus.dto';
export * from './triage/triage.types';
export * from './triage/triage.dto';
export * from './corpus/import-jobs';
export * from './corpus/import-formats';
export type * from './chat/chat-attachments';
export * from './pdf-reports/pdf-reports.dto';
export * from './tools/tools';
export * from './tools/tool-args.schema';
export * from './corpus/finding-filter.schema';
export * from './corpus/finding-query.schema';
export * from './events/chat-events';
export type * from './events/turn-activity';
export * from './jobs/jobs';
export * from './jobs/job-data.schema';
export * from './chat/chat.dto';
export * from './feedback/feedback.types';
export * from './feedback/feedback.dto';
export * from './settings/settings.dto';
export * from './settings/base-url';
export * from './operators/operators.dto';
export * from './operators/api-tokens.dto';
export * from './webhooks/webhooks.types';
export * from './webhooks/webhooks.dto';
export * from './health';
export * from './native-report/native-report';
export * from './validation/zod-dto';
export * from './validation/zod-issues';
export * from './validation/bidi-controls';
