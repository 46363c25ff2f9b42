/**
 * Fault drills: specs that stop and start private Redis and Postgres servers, kill or stall worker
 * processes, flood the API or push a file at the size limit, and so spend most of their time
 * waiting out timeouts and locks. `npm run test:drills` (and CI, after `npm test`) runs them;
 * `npm test` leaves them out to stay under 8 minutes.
 */
module.exports = [
  'apps/agent-worker/src/agent/tools/postgres-outage.int-spec.ts',
  'apps/api/test/chat-postgres-outage.int-spec.ts',
  'apps/api/test/chat-recovery.int-spec.ts',
  'apps/api/test/chat-redis-cluster.int-spec.ts',
  'apps/api/test/chat-redis-hung.int-spec.ts',
  'apps/api/test/chat-redis-outage.int-spec.ts',
  'apps/api/test/errors/process-errors.int-spec.ts',
  'apps/api/test/imports-no-shared-disk.int-spec.ts',
  'apps/api/test/imports-stranded.int-spec.ts',
  'apps/api/test/security/flood.int-spec.ts',
  'apps/api/test/turn-lock-lost.int-spec.ts',
];
