import { applyDecorators } from '@nestjs/common';
import { ApiQuery, type OpenAPIObject } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { validationMetadatasToSchemas } from 'class-validator-jsonschema';
import type { z } from 'zod';
import { toolJsonSchema } from '@corpus-chat/contracts';

/**
 * Fills the OpenAPI schemas of the request DTOs from their class-validator rules (the DTOs live
 * in libs/contracts, shared with the web app, so they carry validation decorators but no
 * `@ApiProperty`): every component schema Nest emitted without properties is replaced by the JSON
 * Schema `class-validator-jsonschema` derives (property types, formats, patterns, enums, lengths,
 * required fields), with references pointing into `#/components/schemas/`. Mutates and returns
 * `document`.
 */
export function withValidationSchemas(document: OpenAPIObject): OpenAPIObject {
  const derived = derivedSchemas();
  const schemas = (document.components ??= {}).schemas ?? (document.components.schemas = {});
  for (const [name, schema] of Object.entries(schemas)) {
    const empty = !('$ref' in schema) && Object.keys((schema as SchemaObject).properties ?? {}).length === 0;
    if (empty && derived[name]) schemas[name] = derived[name];
  }
  return document;
}

/** Every class-validator-decorated class known so far, as JSON Schema by class name. */
function derivedSchemas(): Record<string, SchemaObject> {
  return validationMetadatasToSchemas({ refPointerPrefix: '#/components/schemas/' }) as Record<
    string,
    SchemaObject
  >;
}

/**
 * Documents a route's query string from the class-validator rules of its `@Query()` DTO (which,
 * shared from libs/contracts, has no `@ApiProperty`): one OpenAPI query parameter per property,
 * with its type, format, enum, bounds and whether it is required.
 *
 * @throws Error at start-up when `dto` has no validation rules (nothing would be documented).
 */
export function ApiQueryFrom(dto: new (...args: never[]) => object): MethodDecorator {
  const schema = derivedSchemas()[dto.name];
  if (!schema?.properties)
    throw new Error(`ApiQueryFrom(${dto.name}): the class has no class-validator rules`);
  return queryParameters(schema);
}

/**
 * Documents a route's query string from the zod schema its `ZodValidationPipe` checks with (the
 * JSON Schema `toolJsonSchema` derives, bounds included): one OpenAPI query parameter per field.
 */
export function ApiQueryFromSchema(schema: z.ZodObject): MethodDecorator {
  return queryParameters(toolJsonSchema(schema, 'docs') as SchemaObject);
}

function queryParameters(schema: SchemaObject): MethodDecorator {
  const required = new Set(schema.required ?? []);
  return applyDecorators(
    ...Object.entries(schema.properties ?? {}).map(([name, property]) =>
      ApiQuery({ name, required: required.has(name), schema: property as SchemaObject }),
    ),
  );
}
