import { z } from 'zod';
import { findingListFilterSchema } from './finding-filter.schema';
import { countFindingsByArgsSchema, searchFindingsArgsSchema } from '../tools/tool-args.schema';
import { optionalField } from '../validation/zod-fields';

/** Query strings of the findings endpoints, derived from the tools' schemas so REST answers as they do. */
const restFilter = { includeArchived: true } as const;

/** `GET /api/findings/export.csv|json`: a finding filter (with `origin`, which the tools leave out). */
export const findingFilterQuerySchema = findingListFilterSchema.omit(restFilter);
export type FindingFilterQuery = z.output<typeof findingFilterQuerySchema>;

/** What `searchFindings` takes: the `search_findings` tool's arguments plus `origin`. */
export const searchFindingsListSchema = searchFindingsArgsSchema.extend({
  origin: findingListFilterSchema.shape.origin,
});

/** What `countFindingsBy` takes: the `count_findings_by` tool's arguments, the filter with `origin`. */
export const countFindingsByListSchema = countFindingsByArgsSchema.extend({
  filter: optionalField((v) => (v === null ? undefined : v), findingListFilterSchema),
});

/** `GET /api/findings`: a finding filter (with `origin`) plus a page (limit ≤ 50, default 10). */
export const searchFindingsQuerySchema = searchFindingsListSchema.omit(restFilter);
export type SearchFindingsQuery = z.output<typeof searchFindingsQuerySchema>;

/** `GET /api/findings/counts`: `groupBy` and the filter's fields flat; a page is accepted and ignored. */
export const countFindingsQuerySchema = searchFindingsQuerySchema.extend({
  groupBy: countFindingsByArgsSchema.shape.groupBy,
});
export type CountFindingsQuery = z.output<typeof countFindingsQuerySchema>;
