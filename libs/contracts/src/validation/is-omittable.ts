import { ValidateIf } from 'class-validator';

/**
 * Like `@IsOptional()`, but only an absent field skips validation: an explicit `null` is validated
 * like any other value (and so refused with 400 by `@IsString()`, `@IsBoolean()`…), instead of
 * reaching code that expects a string or a boolean.
 */
export const IsOmittable = (): PropertyDecorator =>
  ValidateIf((_object: object, value: unknown) => value !== undefined);
