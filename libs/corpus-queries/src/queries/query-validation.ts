import type { z } from 'zod';
import {
  TOOL_ARGS_SCHEMAS,
  checkArgs,
  findingListFilterSchema,
  type FindingFilter,
} from '@corpus-chat/contracts';

/**
 * A bad argument to a query function: `field` names it and `message` says what is accepted, in
 * words a model or a person can act on. Never carries SQL.
 */
export class QueryValidationError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'QueryValidationError';
  }
}

/** A filter checked and normalised by {@link normaliseFilter}: archived reports excluded unless asked. */
export type NormalisedFilter = FindingFilter & { includeArchived: boolean };

/**
 * `input` parsed with the contracts `schema` the tools and REST API use, so direct calls refuse the same.
 *
 * @throws QueryValidationError naming the first invalid field.
 */
export function parseArgs<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const checked = checkArgs(schema, input ?? {});
  if (checked.ok) return checked.value;
  const [first] = checked.problems;
  throw new QueryValidationError(first?.field || 'filter', first?.message ?? 'invalid arguments');
}

/**
 * Checks a finding filter (`findingListFilterSchema`) and returns it normalised. Unknown keys are
 * refused: a misspelt filter must not silently count everything.
 *
 * @throws QueryValidationError naming the field.
 */
export function normaliseFilter(input: unknown): NormalisedFilter {
  const filter = parseArgs(findingListFilterSchema, input);
  return { ...filter, includeArchived: filter.includeArchived ?? false };
}

/** A finding id: a positive integer. @throws QueryValidationError */
export function findingId(value: unknown): number {
  return parseArgs(TOOL_ARGS_SCHEMAS.finding_detail, { id: value }).id;
}
