/** Test helpers that import the shared corpus with the real importer. */
export * from './shared-corpus';
export { mulberry32 } from '../generator/prng';
export * from './env-table';
