import { type ArgumentMetadata, BadRequestException, type PipeTransform } from '@nestjs/common';
import type { z } from 'zod';
import { checkArgs, isZodDto, withoutBidiControls } from '@corpus-chat/contracts';

/**
 * Validates a body, query or parameter with a contracts zod schema (or the parameter's `zodDto`
 * class when given none) and hands on the parsed value. A refusal is 400 with one sentence per
 * invalid field (`username is required`, `property colour should not exist`).
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
