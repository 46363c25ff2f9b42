#!/usr/bin/env node
/**
 * Production build of the server side: compiles apps/api, apps/agent-worker and every lib's
 * `src/` with SWC into dist/node (same tree, `.js`), copying JSON data files beside them; specs
 * and test helpers stay out. Start with `node dist/node/apps/api/src/main.js`.
 */
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';

const require = createRequire(import.meta.url);
const { transformFileSync } = require('@swc/core');
const swcOptions = require('./swc-options.cjs');
const root = swcOptions.root;
const out = path.join(root, 'dist', 'node');
const sources = [
  'apps/api/src',
  'apps/agent-worker/src',
  'libs/contracts/src',
  'libs/corpus-queries/src',
  'libs/ingest/src',
  'libs/persistence/src',
  'libs/server-core/src',
];

function* walk(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(full);
    else yield full;
  }
}

/** Specs and test helpers (`testing/`, `test/` folders): tests load them from source, never from dist. */
const isTestOnly = (rel) =>
  /\.(spec|int-spec)\.ts$/.test(rel) ||
  rel.split(path.sep).some((part) => part === 'testing' || part === 'test');

let count = 0;
for (const src of sources) {
  for (const file of walk(path.join(root, src))) {
    const rel = path.relative(root, file);
    if (isTestOnly(rel) || file.endsWith('.d.ts')) continue;
    if (file.endsWith('.ts')) {
      const target = path.join(out, rel.replace(/\.ts$/, '.js'));
      fs.mkdirSync(path.dirname(target), { recursive: true });
      const { code } = transformFileSync(file, { ...swcOptions({ sourceMaps: 'inline' }), filename: file });
      fs.writeFileSync(target, code);
      count++;
    } else if (file.endsWith('.json')) {
      const target = path.join(out, rel);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.copyFileSync(file, target);
    }
  }
}
console.log(`built ${count} files into ${path.relative(root, out)}`);
