import { z } from 'zod';
import { findingFilterSchema } from './finding-filter.schema';
import { countFindingsByArgsSchema, searchFindingsArgsSchema } from '../tools/tool-args.schema';

/**
 * Query strings of the findings endpoints, derived from the tools' argument schemas: the REST API
 * answers exactly what `search_findings` and `count_findings_by` answer. Archived reports are the
 * tools' business only (the Reports page restores a report to count it again).
 */
const restFilter = { includeArchived: true } as const;

/** `GET /api/findings/export.csv|json`: a finding filter. */
export const findingFilterQuerySchema = findingFilterSchema.omit(restFilter);
export type FindingFilterQuery = z.output<typeof findingFilterQuerySchema>;

/** `GET /api/findings`: a finding filter plus a page (limit ≤ 50, default 10). */
export const searchFindingsQuerySchema = searchFindingsArgsSchema.omit(restFilter);
export type SearchFindingsQuery = z.output<typeof searchFindingsQuerySchema>;

/** `GET /api/findings/counts`: `groupBy` and the filter's fields flat; a page is accepted and ignored. */
export const countFindingsQuerySchema = searchFindingsQuerySchema.extend({
  groupBy: countFindingsByArgsSchema.shape.groupBy,
});
export type CountFindingsQuery = z.output<typeof countFindingsQuerySchema>;
