import { z } from 'zod';
import { GROUP_BY_KEYS } from '../corpus/corpus.types';
import { findingFilterSchema } from '../corpus/finding-filter.schema';
import {
  ID_MAX,
  booleanText,
  defaultedField,
  idText,
  intUpTo,
  lowered,
  numeric,
  optionalField,
  requiredField,
  unshownToModel,
} from '../validation/zod-fields';
import { SEARCH_ROWS_CAP, TOOL_NAMES, type ToolName } from './tools';

/** Offsets beyond this are refused: no corpus has that many findings, and Postgres would still scan them. */
export const SEARCH_OFFSET_MAX = 1_000_000_000;

/** Each tool's arguments, declared once: types, JSON Schemas and validation all derive from these. */
export const searchFindingsArgsSchema = findingFilterSchema.extend({
  limit: defaultedField(numeric, z.number().int().min(0).max(SEARCH_ROWS_CAP), 10),
  offset: defaultedField(numeric, intUpTo(0, SEARCH_OFFSET_MAX), 0),
});

export const countFindingsByArgsSchema = z.strictObject({
  groupBy: requiredField(lowered, z.enum(GROUP_BY_KEYS)),
  filter: optionalField((v) => (v === null ? undefined : v), findingFilterSchema),
});

export const TOOL_ARGS_SCHEMAS = {
  get_corpus_overview: z.strictObject({}),
  search_findings: searchFindingsArgsSchema,
  count_findings_by: countFindingsByArgsSchema,
  list_all_reports: z.strictObject({ includeArchived: defaultedField(booleanText, z.boolean(), false) }),
  finding_detail: z.strictObject({
    id: requiredField(numeric, intUpTo(1, ID_MAX, 'must be a positive integer')),
  }),
  compare_reports: z.strictObject({
    baseline: requiredField(idText, z.string()),
    report: optionalField(idText, z.string()),
    // false: no order was given; the earlier recorded scan time becomes the baseline.
    ordered: defaultedField(booleanText, z.boolean(), true),
  }),
} satisfies Record<ToolName, z.ZodType>;

/** Arguments as validated: defaults applied. */
export type ValidToolArgs<N extends ToolName> = z.output<(typeof TOOL_ARGS_SCHEMAS)[N]>;

/** Arguments as a caller writes them: the fields with a default may be left out. */
type CallerArgs<N extends ToolName, D extends keyof ValidToolArgs<N> = never> = Omit<ValidToolArgs<N>, D> &
  Partial<Pick<ValidToolArgs<N>, D>>;

export type GetCorpusOverviewArgs = Record<string, never>;
export type SearchFindingsArgs = CallerArgs<'search_findings', 'limit' | 'offset'>;
export type CountFindingsByArgs = CallerArgs<'count_findings_by'>;
export type ListAllReportsArgs = CallerArgs<'list_all_reports', 'includeArchived'>;
export type FindingDetailArgs = CallerArgs<'finding_detail'>;
/** Reports by file name or id (`"12"`); see `compare_reports` in {@link TOOL_DEFINITIONS}. */
export type CompareReportsArgs = CallerArgs<'compare_reports', 'ordered'>;

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

/**
 * `schema` as input-side JSON Schema for a model (without `unshownToModel` bounds, which cost tokens)
 * or for the OpenAPI document.
 */
export function toolJsonSchema(schema: z.ZodType, audience: 'model' | 'docs' = 'model'): JsonSchema {
  const json = z.toJSONSchema(schema, {
    io: 'input',
    override: ({ zodSchema, jsonSchema }) => {
      if (audience !== 'model') return;
      for (const keyword of unshownToModel.get(zodSchema as z.core.$ZodType)?.keywords ?? [])
        delete (jsonSchema as Record<string, unknown>)[keyword];
    },
  }) as JsonSchema;
  delete json['$schema'];
  return json;
}

const TOOL_DESCRIPTIONS: Record<ToolName, string> = {
  get_corpus_overview:
    'Corpus totals: reports by status, findings by severity, verdicts, triage statuses, and per ' +
    'report its findings by severity.',
  search_findings:
    'Findings matching a filter: the exact `total` and up to 50 rows. For "how many findings relate ' +
    'to X": answer with `total`.',
  count_findings_by:
    'Exact counts of findings per group, most first, optionally filtered: for breakdowns, "which ' +
    'report has the most …" and "most common vulnerability" (title).',
  list_all_reports: 'Every report: id, file name, format, status, finding counts by severity.',
  finding_detail: 'One finding by id: current version, version count, notes, latest verdict.',
  compare_reports:
    'New, fixed and unchanged findings from an older scan (baseline) to a newer one of the same target. Omit report for "since baseline".',
};

/** `count_findings_by` without the filter's descriptions: the model reads them in `search_findings`. */
function countFindingsByJsonSchema(): JsonSchema {
  const json = toolJsonSchema(countFindingsByArgsSchema);
  const filter = (json['properties'] as Record<string, JsonSchema>)['filter'];
  for (const field of Object.values(filter['properties'] as Record<string, JsonSchema>))
    delete field['description'];
  filter['description'] = 'The fields of the search_findings filter.';
  return json;
}

/** Tool definitions in OpenAI chat-completions `tools` format, in `TOOL_NAMES` order. */
export const TOOL_DEFINITIONS: { name: ToolName; description: string; parameters: JsonSchema }[] =
  TOOL_NAMES.map((name) => ({
    name,
    description: TOOL_DESCRIPTIONS[name],
    parameters:
      name === 'count_findings_by' ? countFindingsByJsonSchema() : toolJsonSchema(TOOL_ARGS_SCHEMAS[name]),
  }));
