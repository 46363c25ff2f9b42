/** Jest project for server-core: unit specs (*.spec.ts) and integration specs (*.int-spec.ts) against real Postgres/Redis. */
module.exports = require('../../tools/test/jest-preset.cjs')({
  displayName: 'server-core',
  rootDir: __dirname,
});
