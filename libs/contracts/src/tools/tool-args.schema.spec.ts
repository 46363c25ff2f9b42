import { z } from 'zod';
import { SEVERITIES } from '../corpus/corpus.types';
import { findingFilterSchema } from '../corpus/finding-filter.schema';
import { countFindingsQuerySchema, searchFindingsQuerySchema } from '../corpus/finding-query.schema';
import { checkArgs } from '../validation/zod-issues';
import { TOOL_ARGS_SCHEMAS, TOOL_DEFINITIONS, toolJsonSchema } from './tool-args.schema';
import { TOOL_NAMES } from './tools';

type Schema = {
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean;
  [k: string]: unknown;
};
const parameters = (name: string) => TOOL_DEFINITIONS.find((d) => d.name === name)!.parameters as Schema;

describe('tool argument schemas as JSON Schema', () => {
  it('gives every tool, in TOOL_NAMES order, a closed object schema OpenAI-compatible servers accept', () => {
    expect(TOOL_DEFINITIONS.map((d) => d.name)).toEqual([...TOOL_NAMES]);
    for (const d of TOOL_DEFINITIONS) {
      const p = d.parameters as Schema;
      expect({
        name: d.name,
        type: p.type,
        additionalProperties: p.additionalProperties,
        hasProperties: typeof p.properties === 'object',
      }).toEqual({
        name: d.name,
        type: 'object',
        additionalProperties: false,
        hasProperties: true,
      });
      expect(p).not.toHaveProperty('$schema');
      expect(d.description.length).toBeGreaterThan(20);
    }
  });

  it('lists the required arguments and shows defaults as optional', () => {
    expect(parameters('count_findings_by').required).toEqual(['groupBy']);
    expect(parameters('finding_detail').required).toEqual(['id']);
    expect(parameters('compare_reports').required).toEqual(['baseline']);
    expect(parameters('search_findings').required).toBeUndefined();
    expect(parameters('search_findings').properties!['limit']).toEqual({
      default: 10,
      type: 'integer',
      minimum: 0,
      maximum: 50,
    });
    expect(parameters('list_all_reports').properties!['includeArchived']).toEqual({
      default: false,
      type: 'boolean',
    });
  });

  it('carries the finding filter flat in search_findings and nested in count_findings_by, describing it once', () => {
    const filterFields = Object.keys(findingFilterSchema.shape);
    const search = parameters('search_findings').properties!;
    expect(Object.keys(search)).toEqual([...filterFields, 'limit', 'offset']);
    const nested = parameters('count_findings_by').properties!['filter']!;
    expect(nested).toMatchObject({ type: 'object', additionalProperties: false });
    expect(Object.keys(nested.properties!)).toEqual(filterFields);
    expect(search['severity']).toEqual({ type: 'string', enum: [...SEVERITIES] });
    expect(search['cwe']).toEqual({ description: 'CWE id (79 for CWE-79).', type: 'integer', minimum: 1 });
    expect(String(search['text']!['description'])).toMatch(/^Topic to search for/);
    // The model reads the fields' descriptions once (every request pays for them).
    expect(JSON.stringify(nested.properties)).not.toContain('description');
    expect(nested['description']).toBe('The fields of the search_findings filter.');
    expect(nested.properties!['severity']).toEqual(search['severity']);
  });

  it('shows no bound the model never needs (safe-integer and Postgres limits, text lengths)', () => {
    const json = JSON.stringify(TOOL_DEFINITIONS);
    expect(json).not.toMatch(/9007199254740991|2147483647|maxLength/);
    const docs = toolJsonSchema(findingFilterSchema, 'docs') as Schema;
    expect(docs.properties!['text']).toMatchObject({ type: 'string', maxLength: 500 });
    expect(docs.properties!['reportId']).toEqual({ type: 'integer', minimum: 1, maximum: 2147483647 });
  });
});

describe('tool argument validation', () => {
  const check = (name: keyof typeof TOOL_ARGS_SCHEMAS, args: unknown) =>
    checkArgs(TOOL_ARGS_SCHEMAS[name], args, 'quoted');

  it('reads what small models send: blanks, nulls, capitalised enums, CWE-79, numbers as text; applies defaults', () => {
    expect(
      check('search_findings', { text: ' ', severity: 'High', reportName: null, cwe: 'CWE-79', limit: '5' }),
    ).toEqual({
      ok: true,
      value: { severity: 'high', cwe: 79, limit: 5, offset: 0 },
    });
    expect(check('compare_reports', { baseline: 12 })).toEqual({
      ok: true,
      value: { baseline: '12', ordered: true },
    });
  });

  it('names the field and says why, nested fields by their path', () => {
    expect(check('search_findings', { severity: 'severe' })).toEqual({
      ok: false,
      problems: [
        { field: 'severity', message: "'severity' must be one of: critical, high, medium, low, info" },
      ],
    });
    expect(
      check('count_findings_by', { groupBy: 'severity', filter: { cwe: 'abc', colour: 'red' } }),
    ).toEqual({
      ok: false,
      problems: [
        { field: 'filter.cwe', message: "'filter.cwe' must be a positive integer (79 for CWE-79)" },
        { field: 'filter.colour', message: "'filter' has an unknown property 'colour'" },
      ],
    });
    expect(check('finding_detail', {})).toEqual({
      ok: false,
      problems: [{ field: 'id', message: "'the arguments' must include 'id'" }],
    });
  });

  it('enforces bounds the JSON Schema leaves out', () => {
    expect(check('search_findings', { text: 'x'.repeat(501) })).toEqual({
      ok: false,
      problems: [{ field: 'text', message: "'text' must be at most 500 characters" }],
    });
    expect(check('finding_detail', { id: 2 ** 31 })).toMatchObject({
      ok: false,
      problems: [{ field: 'id' }],
    });
  });
});

describe('findings query strings', () => {
  it('reads query-string text as numbers and booleans the way the filter declares them', () => {
    expect(checkArgs(searchFindingsQuerySchema, { reportId: '7', limit: '20' })).toEqual({
      ok: true,
      value: { reportId: 7, limit: 20, offset: 0 },
    });
    expect(checkArgs(countFindingsQuerySchema, { groupBy: 'Severity', limit: '3' })).toEqual({
      ok: true,
      value: { groupBy: 'severity', limit: 3, offset: 0 },
    });
  });

  it('words each problem for a person, one per field', () => {
    const r = checkArgs(searchFindingsQuerySchema, {
      severity: 'severe',
      limit: '51',
      cwe: '0',
      colour: 'red',
    });
    expect(r).toEqual({
      ok: false,
      problems: [
        {
          field: 'severity',
          message: 'severity must be one of critical, high, medium, low, info, got "severe"',
        },
        { field: 'cwe', message: 'cwe must be a positive integer (79 for CWE-79)' },
        { field: 'limit', message: 'limit must be at most 50, got 51' },
        { field: 'colour', message: 'property colour should not exist' },
      ],
    });
    expect(checkArgs(countFindingsQuerySchema, {})).toEqual({
      ok: false,
      problems: [{ field: 'groupBy', message: 'groupBy is required' }],
    });
    // Express hands the query string over as an object without a prototype.
    const query = Object.assign(Object.create(null) as object, { limit: '5', colour: 'red' });
    expect(checkArgs(findingFilterSchema.omit({ includeArchived: true }), query)).toEqual({
      ok: false,
      problems: [
        { field: 'limit', message: 'property limit should not exist' },
        { field: 'colour', message: 'property colour should not exist' },
      ],
    });
  });

  it('types follow the schema', () => {
    const value: z.output<typeof searchFindingsQuerySchema> = { limit: 1, offset: 0, severity: 'high' };
    expect(checkArgs(searchFindingsQuerySchema, value).ok).toBe(true);
  });
});
