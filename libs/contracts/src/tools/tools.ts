import type { FindingFilter, GroupByKey, Severity, VerdictStatus } from '../corpus/corpus.types';
import { GROUP_BY_KEYS, REPORT_FORMATS, SEVERITIES, VERDICT_STATUSES } from '../corpus/corpus.types';
import { FINDING_EDIT_FILTERS, TRIAGE_STATUSES } from '../triage/triage.types';

/**
 * The agent's read-only corpus tools. Each is a thin wrapper over one query function of
 * `libs/corpus-queries`; the JSON schemas below are what the model sees (OpenAI function calling).
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

/**
 * The name of a tool call as a model sent it: one of `TOOL_NAMES`, or a name it invented (a small
 * model's guess, or a prompt injection's "delete_all_reports"). An invented one is refused with an
 * error the model sees, and shown to the operator as a failed call under that name, cut to
 * `TOOL_CALL_NAME_MAX` characters.
 */
export type ToolCallName = ToolName | (string & Record<never, never>);

/** Characters of an invented tool name kept in events and stored answers. */
export const TOOL_CALL_NAME_MAX = 64;

/** Rows a `search_findings` call returns at most. `total` stays exact beyond it. */
export const SEARCH_ROWS_CAP = 50;

export type GetCorpusOverviewArgs = Record<string, never>;
export interface SearchFindingsArgs extends FindingFilter {
  limit?: number;
  offset?: number;
}
export interface CountFindingsByArgs {
  groupBy: GroupByKey;
  filter?: FindingFilter;
}
export interface ListAllReportsArgs {
  includeArchived?: boolean;
}
export interface FindingDetailArgs {
  id: number;
}
/** Reports by file name or id (`"12"`); see `compare_reports` in {@link TOOL_DEFINITIONS}. */
export interface CompareReportsArgs {
  baseline: string;
  report?: string;
  ordered?: boolean;
}

export interface ToolArgsMap {
  get_corpus_overview: GetCorpusOverviewArgs;
  search_findings: SearchFindingsArgs;
  count_findings_by: CountFindingsByArgs;
  list_all_reports: ListAllReportsArgs;
  finding_detail: FindingDetailArgs;
  compare_reports: CompareReportsArgs;
}

/** A JSON Schema (draft 2020-12 subset) as the OpenAI `tools[].function.parameters` accepts. */
export type JsonSchema = Record<string, unknown>;

const filterProperties: Record<string, JsonSchema> = {
  text: {
    type: 'string',
    description:
      'Topic to search for, e.g. "SQL injection" or "jQuery". Full-text search over title, description, impact and attack vector; a weakness class name (XSS, SQLi, path traversal…) also matches its CWE ids.',
  },
  severity: { type: 'string', enum: [...SEVERITIES] },
  reportId: { type: 'integer', minimum: 1 },
  reportName: { type: 'string', description: "Report file name, e.g. 'dd__flawfinder.sarif'." },
  format: {
    type: 'string',
    enum: [...REPORT_FORMATS],
    description: 'Report format ("the Burp reports": burp).',
  },
  scanner: { type: 'string', description: 'Part of the scanner name, e.g. "semgrep".' },
  cwe: { type: 'integer', minimum: 1, description: 'CWE id (79 for CWE-79).' },
  verdict: { type: 'string', enum: [...VERDICT_STATUSES], description: 'Latest retest verdict.' },
  includeArchived: { type: 'boolean', description: 'Include archived reports (only when asked).' },
  // Self-describing enum: a description would count twice (two tools carry the filter) against the prompt budget.
  status: { type: 'string', enum: [...TRIAGE_STATUSES] },
  // Self-describing like status: "severity" keeps the findings operators re-rated.
  edited: { type: 'string', enum: [...FINDING_EDIT_FILTERS] },
};

/** Tool definitions in OpenAI chat-completions `tools` format. */
export const TOOL_DEFINITIONS: { name: ToolName; description: string; parameters: JsonSchema }[] = [
  {
    name: 'get_corpus_overview',
    description: 'Totals of the whole corpus: reports by status, findings by severity, verdicts by status, and per report its findings by severity.',
    parameters: { type: 'object', properties: {}, additionalProperties: false },
  },
  {
    name: 'search_findings',
    description:
      'Find current findings matching a filter. Returns the EXACT total number of matches and up to 50 rows. Use it for "how many findings relate to X" questions: answer with `total`.',
    parameters: {
      type: 'object',
      properties: {
        ...filterProperties,
        limit: { type: 'integer', minimum: 0, maximum: SEARCH_ROWS_CAP, default: 10 },
        offset: { type: 'integer', minimum: 0, default: 0 },
      },
      additionalProperties: false,
    },
  },
  {
    name: 'count_findings_by',
    description:
      'Exact counts of findings grouped by severity, report, CWE, verdict, triage status, report format or exact title, most first, optionally filtered. Use it for breakdowns, "which report has the most …" and "most common vulnerability" (title) questions.',
    parameters: {
      type: 'object',
      properties: {
        groupBy: { type: 'string', enum: [...GROUP_BY_KEYS] },
        filter: { type: 'object', properties: filterProperties, additionalProperties: false },
      },
      required: ['groupBy'],
      additionalProperties: false,
    },
  },
  {
    name: 'list_all_reports',
    description: 'Every report with its id, file name, format, status and finding counts by severity.',
    parameters: {
      type: 'object',
      properties: { includeArchived: { type: 'boolean', default: false } },
      additionalProperties: false,
    },
  },
  {
    name: 'finding_detail',
    description: 'One finding by id: its current version, how many versions it has, notes and latest verdict.',
    parameters: {
      type: 'object',
      properties: { id: { type: 'integer', minimum: 1 } },
      required: ['id'],
      additionalProperties: false,
    },
  },
  {
    name: 'compare_reports',
    description: 'New, fixed and unchanged findings from an older scan (baseline) to a newer one of the same target. Omit report for "since baseline".',
    parameters: {
      type: 'object',
      properties: {
        baseline: { type: 'string' },
        report: { type: 'string' },
        // false: no order was given; the earlier recorded scan time becomes the baseline.
        ordered: { type: 'boolean', default: true },
      },
      required: ['baseline'],
      additionalProperties: false,
    },
  },
];

/**
 * Bounded data a `tool.result` event carries for the UI card (never the unbounded raw tool output).
 * For `search_findings`: `total`, `returned` and up to 10 rows, plus the filter for the "open in
 * Findings" link.
 */
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
