import type { TextToolCall } from './text-tool-calls';
import { jsonCalls, jsonCallsAt, toCall, tryJson } from './tool-call-json';

/**
 * The tool-call formats of model families that are not plain JSON: Qwen3-Coder's XML, Mistral's
 * `[TOOL_CALLS]`, gpt-oss's commentary channel, Llama's `<|python_tag|>` and pythonic lists.
 */

/**
 * Qwen3-Coder's `<function=NAME><parameter=P>V</parameter></function>`: JSON-looking values are
 * parsed, others kept as strings; a body without parameters is the arguments' JSON text.
 */
export function xmlCalls(s: string): TextToolCall[] {
  const calls: TextToolCall[] = [];
  for (const f of s.matchAll(/<function=([^>\n]+)>([\s\S]*?)(?:<\/function>|$)/g)) {
    const name = f[1].trim();
    if (!name) continue;
    if (!f[2].includes('<parameter=') && f[2].trim()) {
      // Llama 3.1 / Functionary: `<function=NAME>{json}</function>`.
      calls.push(toCall({ name, arguments: f[2].trim() }) ?? { name, arguments: f[2].trim() });
      continue;
    }
    const args: Record<string, unknown> = {};
    for (const p of f[2].matchAll(/<parameter=([^>\n]+)>([\s\S]*?)(?:<\/parameter>|(?=<parameter=)|$)/g)) {
      args[p[1].trim()] = xmlValue(p[2].replace(/^\n/, '').replace(/\n$/, ''));
    }
    calls.push({ name, arguments: JSON.stringify(args) });
  }
  return calls;
}

function xmlValue(raw: string): unknown {
  const v = tryJson(raw);
  return v === undefined || typeof v === 'string' ? raw : v;
}

/** What follows Mistral's `[TOOL_CALLS]`: a JSON list of calls, or `name[ARGS]{…}` per call. */
export function mistralCalls(rest: string): TextToolCall[] {
  const trimmed = rest.trim();
  if (trimmed.startsWith('[') || trimmed.startsWith('{')) return jsonCalls(trimmed, true) ?? [];
  const calls: TextToolCall[] = [];
  for (const piece of trimmed.split('[TOOL_CALLS]')) {
    const m = /^\s*([\w.-]+)(?:\[CALL_ID\][^[]*)?\[ARGS\]([\s\S]*)$/.exec(piece);
    if (!m) continue;
    const args = m[2].trim();
    calls.push(toCall({ name: m[1], arguments: args || '{}' }) ?? { name: m[1], arguments: args });
  }
  return calls;
}

/** gpt-oss's commentary channel addressed to a tool (` to=functions.NAME …<|message|>{…}`). */
export function harmonyCall(rest: string): TextToolCall[] {
  const m = /^([\s\S]*?)<\|message\|>([\s\S]*)$/.exec(rest);
  const name = m && /\bto=(?:functions\.)?([\w.-]+)/.exec(m[1])?.[1];
  if (!m || !name) return [];
  const args = m[2].trim();
  return [toCall({ name, arguments: args || '{}' }) ?? { name, arguments: args }];
}

/** What follows Llama's `<|python_tag|>`: JSON call objects (`;`-separated), or pythonic calls. */
export function pythonTagCalls(rest: string): TextToolCall[] {
  const body = rest.replace(/<\|(?:eom_id|eot_id)\|>/g, '').trim();
  const json = jsonCallsAt(body, 0, true);
  if (json && json !== 'partial') return json.calls;
  return pythonicCalls(body.startsWith('[') ? body : `[${body}]`) ?? [];
}

/** Llama 3.2/4 pythonic calls: only a list `[name(key=value, …)]` of Python literals; else null. */
export function pythonicCalls(text: string): TextToolCall[] | null {
  const s = text.trim();
  let i = 0;
  const fail = (): never => {
    throw new SyntaxError('not a pythonic call list');
  };
  const ws = () => {
    while (i < s.length && /\s/.test(s[i])) i++;
  };
  const eat = (c: string) => {
    ws();
    if (s[i] !== c) fail();
    i++;
  };
  const ident = (): string => {
    ws();
    const m = /^[A-Za-z_][\w.]*/.exec(s.slice(i));
    if (!m) return fail();
    i += m[0].length;
    return m[0];
  };
  /** Items up to `close`, separated by commas (a trailing comma allowed). */
  const items = (close: string, item: () => void) => {
    ws();
    while (s[i] !== close) {
      item();
      ws();
      if (s[i] === ',') i++;
      else if (s[i] !== close) fail();
      ws();
    }
    i++;
  };
  const str = (): string => {
    const q = s[i++];
    let out = '';
    while (i < s.length && s[i] !== q) {
      if (s[i] === '\\') {
        const e = s[++i];
        out += e === 'n' ? '\n' : e === 't' ? '\t' : e;
      } else out += s[i];
      i++;
    }
    if (s[i] !== q) fail();
    i++;
    return out;
  };
  const value = (): unknown => {
    ws();
    const c = s[i];
    if (c === '"' || c === "'") return str();
    if (c === '[' || c === '(') {
      i++;
      const list: unknown[] = [];
      items(c === '[' ? ']' : ')', () => list.push(value()));
      return list;
    }
    if (c === '{') {
      i++;
      const dict: Record<string, unknown> = {};
      items('}', () => {
        const key = value();
        eat(':');
        dict[String(key)] = value();
      });
      return dict;
    }
    const m = /^(?:-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|True|False|None)/.exec(s.slice(i));
    if (!m) return fail();
    i += m[0].length;
    return m[0] === 'True' ? true : m[0] === 'False' ? false : m[0] === 'None' ? null : Number(m[0]);
  };
  try {
    const calls: TextToolCall[] = [];
    eat('[');
    items(']', () => {
      const name = ident();
      const args: Record<string, unknown> = {};
      eat('(');
      items(')', () => {
        const key = ident();
        eat('=');
        args[key] = value();
      });
      calls.push({ name, arguments: JSON.stringify(args) });
    });
    ws();
    return calls.length && i === s.length ? calls : null;
  } catch {
    return null;
  }
}
