import { BadRequestException, ValidationPipe } from '@nestjs/common';
import type { ValidationError } from 'class-validator';

/**
 * One message per invalid field, in the order of the fields, as `path message` sentences
 * (`username is required`, `cwe must be a positive integer (79 for CWE-79)`, `property admin should
 * not exist`). Of a field's failed constraints the one declared first (topmost decorator, usually
 * the type check) is kept: class-validator lists a property's constraints in reverse declaration
 * order, so that is the last entry. A field that is absent (undefined) but required reads
 * `<field> is required`. Nested objects and arrays give dotted paths (`filter.severity …`).
 */
export function firstMessagePerField(errors: readonly ValidationError[], parentPath = ''): string[] {
  const messages: string[] = [];
  for (const error of errors) {
    const path = parentPath ? `${parentPath}.${error.property}` : error.property;
    const constraints = Object.entries(error.constraints ?? {});
    if (constraints.length) {
      const unknown = constraints.find(([name]) => name === 'whitelistValidation');
      let message: string;
      if (unknown) message = unknown[1];
      else if (error.value === undefined) message = `${error.property} is required`;
      else message = constraints[constraints.length - 1]![1];
      messages.push(parentPath ? `${parentPath}.${message}` : message);
    }
    if (error.children?.length) messages.push(...firstMessagePerField(error.children, path));
  }
  return messages;
}

/**
 * The API's global validation of bodies, query strings and parameters (class-validator DTOs from
 * `@corpus-chat/contracts`): unknown fields are refused, values converted to their declared types,
 * and a refusal is 400 `{ statusCode, error: 'Bad Request', message: string[] }` with one message
 * per invalid field (see `firstMessagePerField`) instead of one per failed constraint.
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    exceptionFactory: (errors) => new BadRequestException(firstMessagePerField(errors)),
  });
}
