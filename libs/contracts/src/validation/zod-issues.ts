import type { z } from 'zod';

/** One invalid field: `field` its dotted path (`filter.severity`), `message` a sentence naming it. */
export interface FieldProblem {
  field: string;
  message: string;
}

export type ArgsCheck<T> = { ok: true; value: T } | { ok: false; problems: FieldProblem[] };

/** Problem wording: `plain` for people, `quoted` (field names in quotes) for a model. */
export type ProblemWording = 'plain' | 'quoted';

/** `, got "x"` for a scalar; nothing for an object (a query string's is not even printable). */
const gotPart = (v: unknown): string => {
  if (typeof v === 'string') return `, got ${JSON.stringify(v)}`;
  if (typeof v === 'number' || typeof v === 'boolean') return `, got ${String(v)}`;
  return '';
};

/** What is wrong with a value, without its field: the part after `<field> `. */
function predicate(issue: z.core.$ZodRawIssue, wording: ProblemWording): string | undefined {
  const got = gotPart(issue.input);
  switch (issue.code) {
    case 'invalid_value':
      return wording === 'quoted'
        ? `must be one of: ${issue.values.join(', ')}`
        : `must be one of ${issue.values.join(', ')}${got}`;
    case 'invalid_type':
      if (issue.expected === 'int') return `must be an integer${got}`;
      return `must be ${issue.expected === 'object' ? 'an object' : `a ${issue.expected}`}${got}`;
    case 'too_big':
      return issue.origin === 'string'
        ? `must be at most ${String(issue.maximum)} characters`
        : `must be at most ${String(issue.maximum)}${got}`;
    case 'too_small':
      if (issue.origin === 'string') return 'must not be empty';
      return `must be at least ${String(issue.minimum)}${got}`;
    default:
      return undefined;
  }
}

const PLAIN = (issue: z.core.$ZodRawIssue) => predicate(issue, 'plain');
const QUOTED = (issue: z.core.$ZodRawIssue) => predicate(issue, 'quoted');

/**
 * Parses `value` with `schema`, wording the first problem of each field as a sentence naming it
 * (`groupBy is required`), in schema order; a message the schema declares replaces the generic one.
 */
export function checkArgs<S extends z.ZodType>(
  schema: S,
  value: unknown,
  wording: ProblemWording = 'plain',
): ArgsCheck<z.output<S>> {
  const result = schema.safeParse(value, { error: wording === 'plain' ? PLAIN : QUOTED, reportInput: true });
  if (result.success) return { ok: true, value: result.data };
  // The first problem of each field, in the order found.
  const problems = new Map<string, string>();
  const add = (field: string, message: string) => problems.has(field) || problems.set(field, message);
  for (const issue of result.error.issues) {
    // A list's element is named by its list in plain wording (`ids must be …`, not `ids.3 must be …`).
    const path = wording === 'plain' ? issue.path.filter((p) => typeof p !== 'number') : issue.path;
    const parent = path.map(String).join('.');
    const label = (field: string) => (wording === 'quoted' ? `'${field}'` : field);
    const where = parent ? label(parent) : wording === 'quoted' ? "'the arguments'" : '';
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const field = parent ? `${parent}.${key}` : key;
        add(
          field,
          wording === 'quoted'
            ? `${where} has an unknown property '${key}'`
            : `property ${field} should not exist`,
        );
      }
      continue;
    }
    if (issue.input === undefined && issue.path.length > 0) {
      const key = String(issue.path[issue.path.length - 1]);
      const owner = issue.path.slice(0, -1).map(String).join('.');
      add(
        parent,
        wording === 'quoted'
          ? `${owner ? label(owner) : "'the arguments'"} must include '${key}'`
          : `${parent} is required`,
      );
      continue;
    }
    add(parent, `${where ? `${where} ` : ''}${issue.message}`.trim());
  }
  return { ok: false, problems: [...problems].map(([field, message]) => ({ field, message })) };
}
