export * from './generate-corpus';
