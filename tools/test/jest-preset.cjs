/**
 * Shared Jest settings for the server-side projects. Unit specs (`*.spec.ts` under `src/`) and
 * integration specs (`*.int-spec.ts` and everything under `test/`, real Postgres and Redis) both
 * run; `CC_TEST_TIER=unit` or `=int` keeps one tier (`npm run test:unit`, `npm run test:int`). Each
 * test file that needs a database creates its own (see `@corpus-chat/persistence/testing`), so
 * workers never share state.
 */
const path = require('node:path');
const swcOptions = require('../build/swc-options.cjs');
const { compilerOptions } = require('../../tsconfig.base.json');
const root = swcOptions.root;

const moduleNameMapper = {};
for (const [alias, [target]] of Object.entries(compilerOptions.paths)) {
  moduleNameMapper[`^${alias.replace(/[/.]/g, '\\$&')}$`] = path.join(root, target);
}

const TIERS = {
  unit: ['<rootDir>/src/**/*.spec.ts'],
  int: ['<rootDir>/src/**/*.int-spec.ts', '<rootDir>/test/**/*.spec.ts', '<rootDir>/test/**/*.int-spec.ts'],
};
const tier = process.env.CC_TEST_TIER;
/**
 * `CC_SKIP_DRILLS=1` (`npm test`): the fault drills of `drill-specs.cjs` run apart, under `npm run
 * test:drills`.
 */
const drills = process.env.CC_SKIP_DRILLS === '1' ? require('./drill-specs.cjs').map((p) => `/${p}$`) : [];
if (tier && !TIERS[tier]) throw new Error(`CC_TEST_TIER must be unit or int, not ${tier}`);

module.exports = ({ displayName, rootDir, ...rest }) => ({
  displayName,
  rootDir,
  testEnvironment: 'node',
  testMatch: tier ? TIERS[tier] : [...TIERS.unit, ...TIERS.int],
  // `*.int-spec.ts` also matches `*.spec.ts`: the unit tier leaves it out by name.
  testPathIgnorePatterns: [
    '/node_modules/',
    ...(tier === 'unit' ? ['\\.int-spec\\.ts$'] : []),
    ...drills.map((p) => p.replace(/[.]/g, '\\.')),
  ],
  transform: { '^.+\\.(t|j)s$': ['@swc/jest', swcOptions({ sourceMaps: 'inline' })] },
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper,
  // Used when one project's config runs alone; the root config's `testTimeout` applies otherwise.
  // A bound for set-up hooks (databases, app start-up) on a loaded host, not a timing assertion.
  testTimeout: 60000,
  ...rest,
});
