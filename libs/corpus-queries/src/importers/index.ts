export * from './import-report';
export * from './import-paths';
export * from './import-refusal';
export * from './parse-report';
export type * from './parsed-report';
export { insertFindings } from './persist-report';
export { securitySeverity } from './sarif.importer';
export { stripHtml, cweId } from './text';
export * from './import-jobs';
