#!/usr/bin/env node
/**
 * Runs a server-side TypeScript entry point directly (CLIs, benchmarks, development servers)
 * with the project's SWC settings: `node tools/cli/run-ts.mjs <file.ts> [args...]`.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import process from 'node:process';

const require = createRequire(import.meta.url);
const [entry, ...args] = process.argv.slice(2);
if (!entry) {
  console.error('usage: node tools/cli/run-ts.mjs <file.ts> [args...]');
  process.exit(2);
}
require('../build/register.cjs');
process.argv = [process.argv[0], path.resolve(entry), ...args];
require(path.resolve(entry));
