import type { z } from 'zod';

/** A request DTO class: its instances are the schema's output, and the API validates with `schema`. */
export interface ZodDtoClass<S extends z.ZodType = z.ZodType> {
  new (): z.output<S>;
  readonly schema: S;
}

/** Names a zod schema as a request DTO class, for Nest's types, the global pipe and OpenAPI. */
export function zodDto<S extends z.ZodType>(schema: S): ZodDtoClass<S> {
  return class {
    static readonly schema = schema;
  } as unknown as ZodDtoClass<S>;
}

/** Whether `value` is a class made by `zodDto`. */
export function isZodDto(value: unknown): value is ZodDtoClass {
  return (
    typeof value === 'function' &&
    typeof (value as { schema?: { safeParse?: unknown } }).schema?.safeParse === 'function'
  );
}
