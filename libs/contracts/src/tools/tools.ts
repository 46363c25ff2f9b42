import type { GroupByKey, Severity, VerdictStatus } from '../corpus/corpus.types';
import type { FindingFilter } from '../corpus/finding-filter.schema';

/**
 * The agent's read-only corpus tools, each a thin wrapper over one `libs/corpus-queries` query.
 * Arguments live in `tool-args.schema.ts` so the web client gets these names without zod.
 */
export const TOOL_NAMES = [
  'get_corpus_overview',
  'search_findings',
  'count_findings_by',
  'list_all_reports',
  'finding_detail',
  'compare_reports',
] as const;
export type ToolName = (typeof TOOL_NAMES)[number];
export type * from './tool-args.schema';

/**
 * A tool name as the model sent it: one of `TOOL_NAMES` or an invented one, which is refused and
 * shown as a failed call, cut to `TOOL_CALL_NAME_MAX` characters.
 */
export type ToolCallName = ToolName | (string & Record<never, never>);

/** Characters of an invented tool name kept in events and stored answers. */
export const TOOL_CALL_NAME_MAX = 64;

/** Rows a `search_findings` call returns at most. `total` stays exact beyond it. */
export const SEARCH_ROWS_CAP = 50;

/** Bounded card data a `tool.result` carries for the UI (never the raw output). */
export interface ToolCardData {
  total?: number;
  returned?: number;
  filter?: FindingFilter & { weaknessClasses?: { name: string; cwe: number[] }[] };
  groupBy?: GroupByKey;
  groups?: { key: string; label: string; count: number }[];
  rows?: { id: number; title: string; severity: Severity; reportFilename: string | null }[];
  findingId?: number;
  verdict?: VerdictStatus | null;
}
