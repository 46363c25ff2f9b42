export {
  CorpusTools,
  describeFilter,
  type ToolExecution,
  type ToolSuccess,
  type ToolFailure,
  type ToolResultMap,
} from './corpus-tools';
export {
  CORPUS_QUERY_FNS,
  CorpusUnavailableError,
  type CorpusQueryFns,
  type ReadOnlyRunner,
} from './corpus-queries.port';
export { defaultCorpusQueries, defaultReadOnly, TOOL_STATEMENT_TIMEOUT_MS } from './corpus-queries.binding';
export { ToolArgsValidator, isToolName, shownToolName, type ToolArgsCheck } from './tool-args.validator';
export * from './tool-format';
