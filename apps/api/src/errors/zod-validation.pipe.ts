import { BadRequestException, type PipeTransform } from '@nestjs/common';
import type { z } from 'zod';
import { checkArgs } from '@corpus-chat/contracts';

/**
 * Validates a query string or body with a zod schema of `@corpus-chat/contracts` and hands the
 * parsed value on (text read as numbers, defaults applied). A refusal is 400 in the shape of the
 * global `ValidationPipe`'s: `message` lists one sentence per invalid field, naming it and what it
 * accepts (`severity must be one of critical, high, …`, `property colour should not exist`).
 */
export class ZodValidationPipe<S extends z.ZodType> implements PipeTransform<unknown, z.output<S>> {
  constructor(private readonly schema: S) {}

  transform(value: unknown): z.output<S> {
    const checked = checkArgs(this.schema, value ?? {});
    if (checked.ok) return checked.value;
    throw new BadRequestException(checked.problems.map((p) => p.message));
  }
}
