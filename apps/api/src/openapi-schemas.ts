import { applyDecorators } from '@nestjs/common';
import { ApiQuery, type OpenAPIObject } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import type { z } from 'zod';
import * as contracts from '@corpus-chat/contracts';
import { isZodDto, toolJsonSchema, type ZodDtoClass } from '@corpus-chat/contracts';

/**
 * Fills the empty OpenAPI schemas Nest emits for `zodDto` classes (shared with the web app, so no
 * `@ApiProperty`) with their zod schemas' JSON Schema. Mutates and returns `document`.
 */
export function withValidationSchemas(document: OpenAPIObject): OpenAPIObject {
  const schemas = (document.components ??= {}).schemas ?? (document.components.schemas = {});
  for (const [name, dto] of Object.entries(contracts)) {
    const emitted = schemas[name];
    if (!isZodDto(dto) || !emitted || '$ref' in emitted) continue;
    if (Object.keys(emitted.properties ?? {}).length === 0) schemas[name] = jsonSchemaOf(dto.schema);
  }
  return document;
}

const jsonSchemaOf = (schema: z.ZodType): SchemaObject => toolJsonSchema(schema, 'docs') as SchemaObject;

/** Documents a route's query string from its `@Query()` DTO class: one OpenAPI query parameter per field. */
export function ApiQueryFrom(dto: ZodDtoClass): MethodDecorator {
  return ApiQueryFromSchema(dto.schema);
}

/**
 * Documents a route's query string from the zod schema its `ZodValidationPipe` checks with (the
 * JSON Schema `toolJsonSchema` derives, bounds included): one OpenAPI query parameter per field.
 */
export function ApiQueryFromSchema(schema: z.ZodType): MethodDecorator {
  const json = jsonSchemaOf(schema);
  const required = new Set(json.required ?? []);
  return applyDecorators(
    ...Object.entries(json.properties ?? {}).map(([name, property]) =>
      ApiQuery({ name, required: required.has(name), schema: property as SchemaObject }),
    ),
  );
}
