/**
 * Jest project for ingest: unit specs (*.spec.ts) and integration specs (*.int-spec.ts) against
 * real Postgres/Redis.
 */
module.exports = require('../../tools/test/jest-preset.cjs')({
  displayName: 'ingest',
  rootDir: __dirname,
});
