/** Test helpers for every server-side project: a database of its own per test file, factories. */
export * from './test-db';
export * from './operator-factory';
export * from './shared-corpus';
export * from './test-names';
export * from './chat-turns';
export { mulberry32 } from '../generator/prng';
export * from './env-table';
export * from './tcp-proxy';
