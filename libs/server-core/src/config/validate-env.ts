import { z } from 'zod';
import { checkArgs } from '@corpus-chat/contracts';

/** Thrown at start-up when a setting is missing or malformed; the message names every bad variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * An environment schema, each variable `.describe()`d (`.meta({ secret: true })` for secrets); loose,
 * so another module's schema can read the same environment.
 */
export type EnvSchema = z.ZodObject<z.ZodRawShape, z.core.$loose>;

/** A class naming an env schema: a Nest injection token whose instances hold the defaults. */
export interface EnvClass<S extends EnvSchema = EnvSchema> {
  new (): z.output<S>;
  readonly schema: S;
}

/** The class of `schema` (`class ApiEnv extends envClass(apiEnvSchema) {}`). */
export function envClass<S extends EnvSchema>(schema: S): EnvClass<S> {
  return class {
    static readonly schema = schema;
    constructor() {
      Object.assign(this, schema.parse({}));
    }
  } as unknown as EnvClass<S>;
}

/** `120_000` or `5` as a number; other text stays text and fails as not a number, naming the variable. */
const envNumber = (v: unknown): unknown => {
  const text = typeof v === 'string' ? v.trim().replace(/_/g, '') : '';
  return /^-?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i.test(text) ? Number(text) : v;
};

/** A whole number variable from `min` to `max`, `fallback` when unset. */
export const envInt = (fallback: number, min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER) =>
  z.preprocess(envNumber, z.number().int().min(min).max(max)).default(fallback);

/**
 * Validates `env` with a schema (or its class), applying defaults for unset or empty variables;
 * throws `ConfigError` naming each bad one.
 */
export function validateEnv<S extends EnvSchema>(
  schema: EnvClass<S> | S,
  env: Record<string, unknown> = process.env,
): z.output<S> {
  const given = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const checked = checkArgs(typeof schema === 'function' ? schema.schema : schema, given);
  if (checked.ok) return checked.value;
  throw new ConfigError(
    checked.problems.map(({ field, message }) =>
      message.startsWith(`${field} `)
        ? `${field}: ${message.slice(field.length + 1)}`
        : `${field}: ${message}`,
    ),
  );
}
