import { UnrecoverableError } from 'bullmq';
import type { z } from 'zod';
import { checkArgs } from '@corpus-chat/contracts';

/**
 * A job's data checked against the schema that types it, before the worker acts on it. Malformed
 * data fails the job without retry (`UnrecoverableError`): another attempt would read the same data.
 */
export function parseJobData<S extends z.ZodType>(schema: S, data: unknown): z.output<S> {
  const checked = checkArgs(schema, data ?? {});
  if (checked.ok) return checked.value;
  throw new UnrecoverableError(`job data: ${checked.problems.map((p) => p.message).join('; ')}`);
}
