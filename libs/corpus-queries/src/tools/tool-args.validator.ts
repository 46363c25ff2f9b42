import {
  TOOL_ARGS_SCHEMAS,
  TOOL_CALL_NAME_MAX,
  TOOL_NAMES,
  checkArgs,
  type ToolArgsMap,
  type ToolName,
} from '@corpus-chat/contracts';

/** Outcome of checking a tool call's arguments: the typed args, or a message the model can act on. */
export type ToolArgsCheck<N extends ToolName = ToolName> =
  | { ok: true; name: N; args: ToolArgsMap[N] }
  /** `message` tells the model what to send instead; `problem` says what was wrong, for the operator's tool card. */
  | { ok: false; message: string; problem: string };

export const isToolName = (name: unknown): name is ToolName =>
  typeof name === 'string' && (TOOL_NAMES as readonly string[]).includes(name);

/**
 * A tool name as shown: cut to `TOOL_CALL_NAME_MAX` code points, control and bidirectional
 * characters replaced by U+FFFD. A real tool's name is unchanged.
 */
export const shownToolName = (name: string): string =>
  Array.from(name)
    .slice(0, TOOL_CALL_NAME_MAX)
    .join('')
    // eslint-disable-next-line no-control-regex -- control characters are exactly what is replaced
    .replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028-\u202e\u2066-\u2069]/g, '\ufffd');

/**
 * Validates tool-call arguments (raw JSON text or an object) with `TOOL_ARGS_SCHEMAS`, coercing
 * numeric text, enums and `"CWE-79"`. Never throws: the problems go back to the model as the
 * tool's result so it can correct itself.
 */
export class ToolArgsValidator {
  check<N extends ToolName>(name: N, rawArgs: unknown): ToolArgsCheck<N>;
  check(name: string, rawArgs: unknown): ToolArgsCheck;
  check(name: string, rawArgs: unknown): ToolArgsCheck {
    if (!isToolName(name)) {
      return {
        ok: false,
        problem: `unknown tool '${name}'`,
        message: `Unknown tool '${name}'. Available tools: ${TOOL_NAMES.join(', ')}. All of them only read the corpus.`,
      };
    }
    let args: unknown = rawArgs;
    if (typeof rawArgs === 'string') {
      if (rawArgs.trim() === '') args = {};
      else {
        try {
          args = JSON.parse(rawArgs);
        } catch (e) {
          const problem = `not valid JSON (${(e as Error).message})`;
          return {
            ok: false,
            problem,
            message: `Invalid arguments for ${name}: ${problem}. Send one JSON object, for example ${exampleFor(name)}.`,
          };
        }
      }
    }
    if (args === undefined || args === null) args = {};
    if (typeof args !== 'object' || Array.isArray(args)) {
      const problem = `expected a JSON object, got ${Array.isArray(args) ? 'an array' : typeof args}`;
      return { ok: false, problem, message: `Invalid arguments for ${name}: ${problem}.` };
    }
    const schema = TOOL_ARGS_SCHEMAS[name];
    const checked = checkArgs(schema, args, 'quoted');
    if (checked.ok) return { ok: true, name, args: checked.value as ToolArgsMap[typeof name] };
    const problems = checked.problems.map((p) => p.message);
    const allowed = Object.keys(schema.shape);
    return {
      ok: false,
      problem: problems.join('; '),
      message:
        `Invalid arguments for ${name}: ${problems.join('; ')}. ` +
        (allowed.length
          ? `Allowed properties: ${allowed.join(', ')}. `
          : 'This tool takes no arguments: send {}. ') +
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
