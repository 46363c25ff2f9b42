/**
 * Shared Jest settings for the server-side projects. Unit specs (`*.spec.ts`) and integration
 * specs (`*.int-spec.ts`, real Postgres and Redis) both run; each test file that needs a database
 * creates its own (see `@corpus-chat/corpus-queries/testing`), so workers never share state.
 */
const path = require('node:path');
const swcOptions = require('../build/swc-options.cjs');
const { compilerOptions } = require('../../tsconfig.base.json');
const root = swcOptions.root;

const moduleNameMapper = {};
for (const [alias, [target]] of Object.entries(compilerOptions.paths)) {
  moduleNameMapper[`^${alias.replace(/[/.]/g, '\\$&')}$`] = path.join(root, target);
}

module.exports = ({ displayName, rootDir, ...rest }) => ({
  displayName,
  rootDir,
  testEnvironment: 'node',
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/src/**/*.int-spec.ts', '<rootDir>/test/**/*.spec.ts', '<rootDir>/test/**/*.int-spec.ts'],
  transform: { '^.+\\.(t|j)s$': ['@swc/jest', swcOptions({ sourceMaps: 'inline' })] },
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper,
  testTimeout: 30000,
  ...rest,
});
