import 'reflect-metadata';
import { plainToInstance, type ClassConstructor } from 'class-transformer';
import { validateSync } from 'class-validator';

/** Thrown at start-up when a setting is missing or malformed; the message names every bad variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Environment values are strings: convert one to the type of the property's default (a number or
 * a boolean), so `AGENT_MAX_STEPS=5` validates as the integer 5 whatever decorators the class has
 * (SWC emits no `design:type` for properties whose type is inferred from their default). A value
 * that does not convert stays a string and fails validation with the variable's name.
 */
function fromEnvString(value: unknown, defaultValue: unknown): unknown {
  if (typeof value !== 'string') return value;
  const text = value.trim();
  if (
    typeof defaultValue === 'number' &&
    /^-?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i.test(text.replace(/_/g, ''))
  ) {
    return Number(text.replace(/_/g, ''));
  }
  if (typeof defaultValue === 'boolean' && /^(true|false|1|0)$/i.test(text)) return /^(true|1)$/i.test(text);
  return value;
}

/**
 * Validates `env` (default `process.env`) into an instance of `schema`, applying the class's
 * property defaults and converting numbers and booleans. Throws `ConfigError` naming each bad variable.
 * Usable as `ConfigModule.forRoot({ validate: (env) => validateEnv(ApiEnv, env) })`.
 */
export function validateEnv<T extends object>(
  schema: ClassConstructor<T>,
  env: Record<string, unknown> = process.env,
): T {
  const defaults = new schema() as Record<string, unknown>;
  const merged: Record<string, unknown> = {};
  for (const key of Object.keys(defaults)) merged[key] = defaults[key];
  for (const [k, v] of Object.entries(env))
    if (v !== undefined && v !== '') merged[k] = fromEnvString(v, defaults[k]);
  const instance = plainToInstance(schema, merged, {
    enableImplicitConversion: true,
    exposeDefaultValues: true,
  });
  const errors = validateSync(instance as object, { skipMissingProperties: false, whitelist: false });
  if (errors.length) {
    throw new ConfigError(
      errors.map(
        (e) => `${e.property}: ${Object.values(e.constraints ?? { invalid: 'invalid value' }).join('; ')}`,
      ),
    );
  }
  return instance;
}
