import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import { TOOL_CALL_NAME_MAX, TOOL_DEFINITIONS, TOOL_NAMES, type ToolArgsMap, type ToolName } from '@corpus-chat/contracts';

/** Outcome of checking a tool call's arguments: the typed args, or a message the model can act on. */
export type ToolArgsCheck<N extends ToolName = ToolName> =
  | { ok: true; name: N; args: ToolArgsMap[N] }
  /** `message` tells the model what to send instead; `problem` says what was wrong, for the operator's tool card. */
  | { ok: false; message: string; problem: string };

export const isToolName = (name: unknown): name is ToolName => typeof name === 'string' && (TOOL_NAMES as readonly string[]).includes(name);

/**
 * A tool call's name as events, stored answers and summaries show it: cut to `TOOL_CALL_NAME_MAX`
 * code points (never inside a surrogate pair), with control, bidirectional-override and line
 * separator characters (which could break or visually reverse the label) replaced by U+FFFD. A real
 * tool's name is unchanged.
 */
export const shownToolName = (name: string): string =>
  Array.from(name)
    .slice(0, TOOL_CALL_NAME_MAX)
    .join('')
    // eslint-disable-next-line no-control-regex -- control characters are exactly what is replaced
    .replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028-\u202e\u2066-\u2069]/g, '\ufffd');

const LOWERCASED_KEYS = new Set(['severity', 'verdict', 'status', 'groupBy', 'format']);

/**
 * Drops `null` and empty-string values, which small models send for "no filter", lower-cases enum
 * values (`"High"` → `high`) and reads `"CWE-79"` as 79. Anything else is left to the schema.
 */
function normalise(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalise);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (v === null || v === undefined || (typeof v === 'string' && v.trim() === '')) continue;
      if (typeof v === 'string' && LOWERCASED_KEYS.has(k)) out[k] = v.trim().toLowerCase();
      else if (typeof v === 'string' && k === 'cwe' && /^\s*cwe[-_ ]?\d+\s*$/i.test(v)) out[k] = Number(v.replace(/\D/g, ''));
      else out[k] = normalise(v);
    }
    return out;
  }
  return value;
}

function describeError(e: ErrorObject): string {
  const where = e.instancePath ? `'${e.instancePath.slice(1).replace(/\//g, '.')}'` : 'the arguments';
  switch (e.keyword) {
    case 'enum':
      return `${where} must be one of: ${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
    case 'additionalProperties':
      return `${where} has an unknown property '${(e.params as { additionalProperty: string }).additionalProperty}'`;
    case 'required':
      return `${where} must include '${(e.params as { missingProperty: string }).missingProperty}'`;
    default:
      return `${where} ${e.message ?? 'is invalid'}`;
  }
}

/**
 * Validates tool-call arguments against the JSON schemas of `TOOL_DEFINITIONS` (the same schemas
 * the model is shown) with Ajv: types are coerced where unambiguous (`"10"` → 10), defaults are
 * applied, `null`/empty values are dropped, enum values lower-cased. Arguments may arrive as the raw JSON string a model sent.
 * Never throws: an invalid call yields a message naming each problem and the allowed properties,
 * which is sent back to the model as the tool's result so it can correct itself.
 */
export class ToolArgsValidator {
  private readonly validators = new Map<ToolName, ValidateFunction>();
  private readonly allowed = new Map<ToolName, string[]>();

  constructor() {
    const ajv = new Ajv({ allErrors: true, useDefaults: true, coerceTypes: true, strict: false });
    for (const def of TOOL_DEFINITIONS) {
      this.validators.set(def.name, ajv.compile(def.parameters));
      this.allowed.set(def.name, Object.keys((def.parameters['properties'] as Record<string, unknown>) ?? {}));
    }
  }

  check<N extends ToolName>(name: N, rawArgs: unknown): ToolArgsCheck<N>;
  check(name: string, rawArgs: unknown): ToolArgsCheck;
  check(name: string, rawArgs: unknown): ToolArgsCheck {
    if (!isToolName(name)) {
      return { ok: false, problem: `unknown tool '${name}'`, message: `Unknown tool '${name}'. Available tools: ${TOOL_NAMES.join(', ')}. All of them only read the corpus.` };
    }
    let args: unknown = rawArgs;
    if (typeof rawArgs === 'string') {
      if (rawArgs.trim() === '') args = {};
      else {
        try {
          args = JSON.parse(rawArgs);
        } catch (e) {
          const problem = `not valid JSON (${(e as Error).message})`;
          return { ok: false, problem, message: `Invalid arguments for ${name}: ${problem}. Send one JSON object, for example ${exampleFor(name)}.` };
        }
      }
    }
    if (args === undefined || args === null) args = {};
    if (typeof args !== 'object' || Array.isArray(args)) {
      const problem = `expected a JSON object, got ${Array.isArray(args) ? 'an array' : typeof args}`;
      return { ok: false, problem, message: `Invalid arguments for ${name}: ${problem}.` };
    }
    const cleaned = normalise(args) as Record<string, unknown>;
    const validate = this.validators.get(name)!;
    if (validate(cleaned)) return { ok: true, name, args: cleaned as ToolArgsMap[typeof name] };
    const problems = [...new Set((validate.errors ?? []).map(describeError))];
    const allowed = this.allowed.get(name)!;
    return {
      ok: false,
      problem: problems.join('; '),
      message:
        `Invalid arguments for ${name}: ${problems.join('; ')}. ` +
        (allowed.length ? `Allowed properties: ${allowed.join(', ')}. ` : 'This tool takes no arguments: send {}. ') +
        'Fix the arguments and call the tool again.',
    };
  }
}

function exampleFor(name: ToolName): string {
  switch (name) {
    case 'search_findings':
      return '{"text": "SQL injection", "severity": "high"}';
    case 'count_findings_by':
      return '{"groupBy": "severity"}';
    case 'finding_detail':
      return '{"id": 12}';
    case 'compare_reports':
      return '{"baseline": "scan-v1.json", "report": "scan-v2.json"}';
    default:
      return '{}';
  }
}
