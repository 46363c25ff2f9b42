import type { TextToolCall } from './text-tool-calls';

/**
 * Reading tool calls written as JSON: a call object (`{name, arguments | parameters}`, or OpenAI's
 * `{type, function: {…}}`), a list of them, several in a row, or one cut short.
 */

/**
 * `text` as a call object or a list of them, or null. `bareName`: a `{"name": …}` with no
 * arguments counts as a call (see `toCall`).
 */
export function jsonCalls(text: string, bareName = false): TextToolCall[] | null {
  const v = tryJson(text);
  return v === undefined ? null : toCalls(v, bareName);
}

function toCalls(v: unknown, bareName: boolean): TextToolCall[] | null {
  const list = Array.isArray(v) ? v : [v];
  const calls = list.map((c) => toCall(c, bareName));
  return calls.length && calls.every((c) => c) ? (calls as TextToolCall[]) : null;
}

/** Keys a call object without arguments may have; any other key makes it data that has a `name`. */
const BARE_CALL_KEYS = new Set(['name', 'arguments', 'parameters', 'id', 'type']);
const IDENTIFIER = /^[A-Za-z_][\w.-]*$/;

/**
 * `{name, arguments | parameters}` (or OpenAI's `{type, function}`); with `bareName`, a lone
 * identifier-like `name` is a call without arguments.
 */
export function toCall(v: unknown, bareName = false): TextToolCall | null {
  if (!isRecord(v)) return null;
  const call = isRecord(v['function']) ? v['function'] : v;
  const name = typeof call['name'] === 'string' ? call['name'].trim() : '';
  let args = call['arguments'] ?? call['parameters'];
  if (args === undefined || args === null) {
    if (!bareName || !IDENTIFIER.test(name) || !Object.keys(call).every((k) => BARE_CALL_KEYS.has(k)))
      return null;
    args = {};
  }
  if (typeof args === 'string') args = tryJson(args);
  return name && isRecord(args) ? { name, arguments: JSON.stringify(args) } : null;
}

/** A call whose JSON was cut short or mangled: its name, and its arguments as far as they go. */
export function looseCall(body: string): TextToolCall | null {
  const name = /"name"\s*:\s*"([^"\\]+)"/.exec(body)?.[1]?.trim();
  const key = /"(?:arguments|parameters)"\s*:\s*/.exec(body);
  if (!name || !key) return null;
  const rest = body.slice(key.index + key[0].length).trim();
  const end = valueEnd(rest, 0);
  const raw = end > 0 ? rest.slice(0, end) : rest;
  const parsed = toCall({ name, arguments: raw });
  return parsed ?? { name, arguments: raw };
}

/**
 * Call objects or lists starting at `start`, separated by blanks, `;` or `,` (Llama writes
 * several that way): `partial` when one is not closed yet, null when the first is not a call.
 */
export function jsonCallsAt(
  s: string,
  start: number,
  bareName: boolean,
): { calls: TextToolCall[]; end: number } | 'partial' | null {
  const calls: TextToolCall[] = [];
  let pos = start;
  let end = start;
  while (s[pos] === '{' || s[pos] === '[') {
    const valueEnd_ = valueEnd(s, pos);
    if (valueEnd_ < 0) return 'partial';
    const found = jsonCalls(s.slice(pos, valueEnd_), bareName);
    if (!found) break;
    calls.push(...found);
    end = valueEnd_;
    pos = end + (/^[\s;,]*/.exec(s.slice(end))?.[0].length ?? 0);
  }
  return calls.length ? { calls, end } : null;
}

/** The index just past the JSON object or array opening at `start`, or -1 when it is not closed. */
export function valueEnd(s: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < s.length; i++) {
    const c = s[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/** `text` parsed as JSON; undefined when it is not JSON. */
export function tryJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
