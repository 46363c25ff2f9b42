/**
 * Jest project for persistence: unit specs (*.spec.ts) and integration specs (*.int-spec.ts) against
 * real Postgres/Redis.
 */
module.exports = require('../../tools/test/jest-preset.cjs')({
  displayName: 'persistence',
  rootDir: __dirname,
});
