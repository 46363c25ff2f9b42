import { type ArgumentMetadata, BadRequestException, type PipeTransform } from '@nestjs/common';
import type { z } from 'zod';
import { checkArgs, isZodDto, withoutBidiControls } from '@corpus-chat/contracts';

/**
 * Validates a body, query string or parameter with a zod schema of `@corpus-chat/contracts` and
 * hands the parsed value on (text read as numbers, defaults applied). Given no schema (the API's
 * global pipe), it uses the schema of the parameter's `zodDto` class and passes any other
 * parameter through. Unknown fields are refused (the DTO schemas are strict objects). A refusal is
 * 400 `{ statusCode, error: 'Bad Request', message: string[] }` with one sentence per invalid
 * field, naming it and what it accepts (`severity must be one of critical, high, …`, `username is
 * required`, `property colour should not exist`).
 */
export class ZodValidationPipe<S extends z.ZodType = z.ZodType> implements PipeTransform<unknown, unknown> {
  constructor(private readonly schema?: S) {}

  transform(value: unknown, metadata?: ArgumentMetadata): unknown {
    const schema = this.schema ?? (isZodDto(metadata?.metatype) ? metadata.metatype.schema : undefined);
    if (!schema) return value;
    const checked = checkArgs(schema, value ?? {});
    if (checked.ok) return metadata?.type === 'body' ? withoutBidiControls(checked.value) : checked.value;
    throw new BadRequestException(checked.problems.map((p) => p.message));
  }
}
