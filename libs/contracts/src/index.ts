/**
 * Types shared by the API, the agent-worker and the web client. Nothing here may import Node-only
 * modules or anything else of ours.
 */
export * from './corpus/corpus.types';
export * from './corpus/corpus.dto';
export * from './corpus/import-jobs';
export * from './tools/tools';
export * from './events/chat-events';
export * from './jobs/jobs';
export * from './chat/chat.dto';
export * from './settings/settings.dto';
export * from './settings/base-url';
export * from './operators/operators.dto';
export * from './health';
export * from './native-report/native-report';
export * from './validation/is-omittable';
