import { z } from 'zod';

/** Argument schema blocks that read a value's real forms first; the JSON Schema shows the canonical one. */

/** `null` and blank text mean "not given": small models send them for "no filter", forms for an empty field. */
const given = (v: unknown): unknown =>
  v === null || (typeof v === 'string' && v.trim() === '') ? undefined : v;

/** Decimal text as a number (`"10"` → 10), so a query string or a model's quoted number is checked as one. */
export const numeric = (v: unknown): unknown => {
  const g = given(v);
  return typeof g === 'string' && /^\s*[-+]?\d+(\.\d+)?\s*$/.test(g) ? Number(g) : g;
};

/** Enum values case-insensitively (`"High"` → `high`). */
export const lowered = (v: unknown): unknown => {
  const g = given(v);
  return typeof g === 'string' ? g.trim().toLowerCase() : g;
};

/** Runs of white space as one space, trimmed. */
export const collapsed = (v: unknown): unknown => {
  const g = given(v);
  return typeof g === 'string' ? g.replace(/\s+/g, ' ').trim() : g;
};

/** `"true"`/`"false"` from a query string as booleans. */
export const booleanText = (v: unknown): unknown => (v === 'true' ? true : v === 'false' ? false : given(v));

/** A number where a name-or-id is expected (`12` → `"12"`). */
export const idText = (v: unknown): unknown => (typeof v === 'number' ? String(v) : collapsed(v));

/** `79`, `"79"` or `"CWE-79"` as 79. */
export const cweNumber = (v: unknown): unknown => {
  const m = typeof v === 'string' ? /^\s*cwe[-_ ]?(\d+)\s*$/i.exec(v) : null;
  return m ? Number(m[1]) : numeric(v);
};

/** A field that may be left out: `read` first, then `schema`. */
export const optionalField = <T extends z.ZodType>(read: (v: unknown) => unknown, schema: T) =>
  z.preprocess(read, schema.optional());

/** A field that must be given (a blank one counts as missing). */
export const requiredField = <T extends z.ZodType>(read: (v: unknown) => unknown, schema: T) =>
  z.preprocess(read, schema);

/** A field that takes `fallback` when left out. */
export const defaultedField = <T extends z.ZodType>(
  read: (v: unknown) => unknown,
  schema: T,
  fallback: z.output<T>,
) => z.preprocess(read, schema.default(fallback as never));

/** Largest Postgres `integer`: an id beyond it matches nothing and would fail in SQL. */
export const ID_MAX = 2147483647;

/** JSON Schema keywords the model is not shown: bounds it never nears would cost tokens every request. */
export const unshownToModel = z.registry<{ keywords: string[] }>();

/** Text of at most `max` characters; the bound is not shown to the model. */
export const unshownMaxLength = (max: number) =>
  z
    .string()
    .max(max)
    .register(unshownToModel, { keywords: ['maxLength'] });

/** A whole number from `min` to `max`; the upper bound is not shown to the model. `error` replaces every message. */
export const intUpTo = (min: number, max: number, error?: string) => {
  const e = error ? { error } : undefined;
  return z
    .number(e)
    .int(e)
    .min(min, e)
    .max(max, e)
    .register(unshownToModel, { keywords: ['maximum'] });
};
