/** Jest project for corpus-queries: unit specs (*.spec.ts) and integration specs (*.int-spec.ts) against real Postgres/Redis. */
module.exports = require('../../tools/test/jest-preset.cjs')({
  displayName: 'corpus-queries',
  rootDir: __dirname,
});
