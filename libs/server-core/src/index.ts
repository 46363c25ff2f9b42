/**
 * Runtime pieces the API and the agent-worker share: validated configuration, and (added by the
 * turn pipeline) Redis connections, the turn event bus and cancel signals.
 */
export * from './config/validate-env';
export * from './config/base-env';
export * from './config/listen-error';
export * from './agent-runner';
export * from './redis/redis-connection';
export * from './redis/redis-keys';
export * from './redis/redis-unavailable';
export * from './redis/redis-hang';
export * from './turns/turn-event-bus';
export * from './turns/turn-event-subscriber';
export * from './turns/turn-cancel-signals';
export * from './turns/finish-turn';
export * from './turns/turn-trace';
export * from './metrics/metrics';
export * from './turns/turn-pipeline.module';
export * from './logging/pino-params';
export * from './database/database-unavailable';
export * from './database/migrations';
export * from './process/process-lifecycle';
export * from './model/connection-failure';
export * from './model/model-context';
export * from './model/model-url-allowlist';
export * from './metrics/metrics.module';
export * from './model/model-slots';
export * from './model/model-redirects';
export * from './tracing/tracing';
export * from './process/sleep';
export * from './webhooks/webhook-target';
export * from './webhooks/webhook-sender';
export * from './webhooks/webhook-jobs';
export * from './jobs/job-lifecycle';
