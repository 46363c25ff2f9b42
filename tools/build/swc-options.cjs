/**
 * The one SWC configuration for server-side TypeScript (api, agent-worker, libs):
 * CommonJS output, legacy decorators with emitted metadata (NestJS and TypeORM read it),
 * and the tsconfig path aliases rewritten to relative requires.
 * Used by the Jest transform, the `run-ts` launcher and the production build.
 */
const path = require('node:path');
const root = path.resolve(__dirname, '..', '..');
const { compilerOptions } = require(path.join(root, 'tsconfig.base.json'));

/** @param {{ sourceMaps?: boolean | 'inline' }} [opts] */
module.exports = function swcOptions(opts = {}) {
  return {
    jsc: {
      parser: { syntax: 'typescript', decorators: true, dynamicImport: true },
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      target: 'es2022',
      keepClassNames: true,
      baseUrl: root,
      paths: compilerOptions.paths,
    },
    module: { type: 'commonjs', strictMode: true },
    sourceMaps: opts.sourceMaps ?? 'inline',
    swcrc: false,
    configFile: false,
  };
};
module.exports.root = root;
