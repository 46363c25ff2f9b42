import { z } from 'zod';
import { ID_MAX, intUpTo, numeric, optionalField, requiredField } from './zod-fields';

/** Fields several DTOs share; an optional field either reads `null` as absent or refuses it (400). */

/** An optional field of a JSON body that also takes `null` for "not given". */
export const optional = <T extends z.ZodType>(schema: T) =>
  optionalField((v) => (v === null ? undefined : v), schema);

/** An optional list of CWE numbers (79 for CWE-79), at most 20; `null` refused. */
export const cweNumbers = () => {
  const e = { error: 'must list CWE numbers (79 for CWE-79)' };
  return z.array(z.number(e).int(e).min(1, e)).max(20).optional();
};

/** Text that may be left out (not null), at most `max` characters. */
export const optionalText = (max: number) => z.string().max(max).optional();

/** An optional filter on one operator, by id. */
export const operatorIdFilter = () => z.guid({ error: 'must be an operator id (a UUID)' }).optional();

/** A whole number from a query string, from `min` to `max`. `error` replaces every message. */
export const queryInt = (min: number, max = ID_MAX, error?: string) =>
  requiredField(numeric, intUpTo(min, max, error));

/** Like `queryInt`, but may be left out. */
export const optionalQueryInt = (min: number, max = ID_MAX, error?: string) =>
  optionalField(numeric, intUpTo(min, max, error));

/** The optional page size of a listing's query string: 1 to 200. */
export const pageLimit = () => optionalQueryInt(1, 200);

/** An ISO 8601 date or date-time (`2026-12-01`, `2026-12-01T10:00:00Z`, with an offset or not). */
export const isoDateText = (error: string) =>
  z
    .string({ error })
    .regex(/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)?)?$/, { error })
    .refine((v) => !Number.isNaN(Date.parse(v)), { error });
