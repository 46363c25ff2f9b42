/** Jest project for agent-worker: unit specs (*.spec.ts) and integration specs (*.int-spec.ts) against real Postgres/Redis. */
module.exports = require('../../tools/test/jest-preset.cjs')({
  displayName: 'agent-worker',
  rootDir: __dirname,
});
