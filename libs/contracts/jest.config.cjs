/** Jest project for contracts: unit specs (*.spec.ts) and integration specs (*.int-spec.ts) against real Postgres/Redis. */
module.exports = require('../../tools/test/jest-preset.cjs')({
  displayName: 'contracts',
  rootDir: __dirname,
});
