import { BadRequestException, Injectable, Param, ParseUUIDPipe, type PipeTransform } from '@nestjs/common';

/** Largest id of an `integer` (int4) identity column, such as `findings.id` and `reports.id`. */
export const MAX_INT_ID = 2_147_483_647;

/** A UUID route parameter; else 400 (an unknown id is still the service's 404). */
export const UuidParam = (name: string): ParameterDecorator =>
  Param(
    name,
    new ParseUUIDPipe({ exceptionFactory: () => new BadRequestException(`${name} must be a UUID`) }),
  );

/** Parses an integer id parameter, 1 to `MAX_INT_ID` decimal digits only; else 400. */
@Injectable()
export class ParseIntIdPipe implements PipeTransform<string, number> {
  constructor(private readonly name: string) {}

  transform(value: string): number {
    const id = /^\d+$/.test(value) ? Number(value) : NaN;
    if (!Number.isInteger(id) || id < 1)
      throw new BadRequestException(`${this.name} must be a positive integer`);
    if (id > MAX_INT_ID)
      throw new BadRequestException(`${this.name} must be a positive integer up to ${MAX_INT_ID}`);
    return id;
  }
}

/** A route parameter `name` that must be an integer id (see `ParseIntIdPipe`), handed over as a number. */
export const IntIdParam = (name: string): ParameterDecorator => Param(name, new ParseIntIdPipe(name));
