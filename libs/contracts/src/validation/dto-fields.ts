import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { IsOmittable } from './is-omittable';

/** Several property decorators as one, run in the order they would run stacked above a field (bottom first). */
function stacked(...decorators: PropertyDecorator[]): PropertyDecorator {
  return (target, key) => {
    for (const decorate of [...decorators].reverse()) decorate(target, key);
  };
}

const CWE_MESSAGE = 'cwe must list CWE numbers (79 for CWE-79)';

/** An optional list of CWE numbers (79 for CWE-79), at most 20. */
export const CweNumbers = (): PropertyDecorator =>
  stacked(
    IsOmittable(),
    IsArray(),
    ArrayMaxSize(20),
    IsInt({ each: true, message: CWE_MESSAGE }),
    Min(1, { each: true, message: CWE_MESSAGE }),
  );

/** Text that may be left out (not null), at most `max` characters. */
export const OptionalText = (max: number): PropertyDecorator =>
  stacked(IsOmittable(), IsString(), MaxLength(max));

/** An optional filter on one operator, by id. */
export const OperatorIdFilter = (): PropertyDecorator =>
  stacked(IsOptional(), IsUUID('all', { message: '$property must be an operator id (a UUID)' }));

/** The optional page size of a listing's query string: 1 to 200. */
export const PageLimit = (): PropertyDecorator =>
  stacked(IsOptional(), Type(() => Number) as PropertyDecorator, IsInt(), Min(1), Max(200));
