import type { OpenAPIObject } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { validationMetadatasToSchemas } from 'class-validator-jsonschema';

/**
 * Fills the OpenAPI schemas of the request DTOs from their class-validator rules (the DTOs live
 * in libs/contracts, shared with the web app, so they carry validation decorators but no
 * `@ApiProperty`): every component schema Nest emitted without properties is replaced by the JSON
 * Schema `class-validator-jsonschema` derives (property types, formats, patterns, enums, lengths,
 * required fields), with references pointing into `#/components/schemas/`. Mutates and returns
 * `document`.
 */
export function withValidationSchemas(document: OpenAPIObject): OpenAPIObject {
  const derived = validationMetadatasToSchemas({ refPointerPrefix: '#/components/schemas/' }) as Record<
    string,
    SchemaObject
  >;
  const schemas = (document.components ??= {}).schemas ?? (document.components.schemas = {});
  for (const [name, schema] of Object.entries(schemas)) {
    const empty = !('$ref' in schema) && Object.keys((schema as SchemaObject).properties ?? {}).length === 0;
    if (empty && derived[name]) schemas[name] = derived[name];
  }
  return document;
}
