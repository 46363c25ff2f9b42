/** Test helpers for every server-side project: a database of its own per test file, factories. */
export * from './test-db';
export * from './operator-factory';
export * from './test-names';
export * from './chat-turns';
export * from './tcp-proxy';
export * from './eventually';
