/**
 * Require hook: compiles `.ts` files on load with the project's SWC options (see swc-options.cjs).
 * Uses `pirates`, the hook library Jest and Babel use, so no Module internals are patched here.
 */
const { addHook } = require('pirates');
const { transformSync } = require('@swc/core');
const swcOptions = require('./swc-options.cjs');
require('reflect-metadata');

const options = swcOptions({ sourceMaps: 'inline' });
addHook((code, filename) => transformSync(code, { ...options, filename }).code, {
  exts: ['.ts'],
  ignoreNodeModules: true,
});
process.setSourceMapsEnabled?.(true);
