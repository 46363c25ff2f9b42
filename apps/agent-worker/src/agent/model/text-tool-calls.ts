/**
 * Tool calls a model wrote into its answer text because the server's tool parser did not catch
 * them (no parser configured, a template the parser does not know, a small model's own format).
 */

/** A tool call found in the text. `arguments`: JSON text of an object, or the raw text when it was not JSON. */
export interface TextToolCall {
  name: string;
  arguments: string;
}

/** What `scanToolMarkup` found in the answer text of one step (reasoning already removed). */
export interface MarkupScan {
  /** The text outside recognised markup, up to the first call (what the model wrote after a call is dropped). */
  text: string;
  /** While streaming: `text` from this offset on may still turn out to be markup; null when none of it can. */
  heldFrom: number | null;
  calls: TextToolCall[];
  /** When a call after prose begins inside the settled text: how many of its characters stay answer text. */
  settledKept?: number;
}

/** Answer text before the scanned content that an earlier scan found free of markup. */
export interface SettledText {
  /** It has non-blank characters, so the content is not the start of the answer. */
  started: boolean;
  /** The text itself; read only by a final scan (a call after prose may begin in it). */
  text: string;
}

/** Markup whose content is only known once it is closed (or the stream ends). */
const OPENERS = [
  '<tool_call>',
  '<function=',
  '```',
  '[TOOL_CALLS]',
  '<|python_tag|>',
  '<|channel|>commentary',
] as const;
/**
 * Tags a partial suffix of the text may be the start of; held until the next characters decide.
 * The reasoning tags (`<think>`, gpt-oss channel markers) are taken out before the scan.
 */
const HOLD_TAGS = [
  '<think>',
  '</think>',
  '<|channel|>analysis<|message|>',
  '<|channel|>final<|message|>',
  '<|start|>assistant to=',
  '<|end|>',
  '<|return|>',
  ...OPENERS,
];

/**
 * Finds the tool calls in `content`, the answer text of one step: Hermes `<tool_call>` blocks
 * (JSON or Qwen3-Coder XML inside; an unclosed one runs to the end), bare `<function=NAME>` blocks
 * (Qwen3-Coder `<parameter=…>` tags, or a JSON object as Llama 3.1 and Functionary write it),
 * ```json fences holding a call, Mistral `[TOOL_CALLS]` (a JSON list, or `name[ARGS]{…}`), Llama
 * `<|python_tag|>`, gpt-oss `<|channel|>commentary to=functions.NAME … <|message|>{…}<|call|>`, a
 * call object or list (`arguments` or Llama's `parameters`) opening the content, a content that is
 * only a pythonic list `[name(key=value, …)]`, and a call object after prose. A call's missing or
 * null arguments are `{}`; what the model wrote after a call is dropped. Markup that is not a call
 * stays in `text`. `final: false` (streaming) marks where undecided markup starts instead of
 * judging it; `final: true` judges everything. `settled`: the answer text before `content`, not
 * scanned again. Never throws.
 */
export function scanToolMarkup(
  content: string,
  final: boolean,
  settled: SettledText = { started: false, text: '' },
): MarkupScan {
  const start = settled.started ? -1 : content.search(/\S/);
  if (
    start >= 0 &&
    (content[start] === '{' || content[start] === '[') &&
    !content.startsWith('[TOOL_CALLS]', start)
  ) {
    const r = jsonCallsAt(content, start, true);
    if (r === 'partial' && !final) return { text: '', heldFrom: 0, calls: [] };
    if (r === 'partial') {
      const loose = looseCall(content);
      if (loose) return { text: '', heldFrom: null, calls: [loose] };
    } else if (r) {
      // Held while streaming: the whole step is a call; of what follows, only further calls count.
      if (!final) return { text: '', heldFrom: 0, calls: [] };
      return {
        text: '',
        heldFrom: null,
        calls: [...r.calls, ...scanToolMarkup(content.slice(r.end), true, { started: true, text: '' }).calls],
      };
    } else {
      const pythonic = pythonicCalls(content);
      if (pythonic)
        return final ? { text: '', heldFrom: null, calls: pythonic } : { text: '', heldFrom: 0, calls: [] };
    }
  }

  const calls: TextToolCall[] = [];
  let text = '';
  const keep = (s: string) => {
    if (!calls.length) text += s;
  };
  let pos = 0;
  for (;;) {
    const next = earliestOpener(content, pos);
    if (!next) break;
    keep(content.slice(pos, next.at));
    const r = resolve(next.token, content, next.at, final);
    if (!r) return { text, heldFrom: text.length, calls };
    if (r.calls.length) calls.push(...r.calls);
    else keep(content.slice(next.at, r.end));
    pos = r.end;
  }
  const tail = content.slice(pos);
  if (!final) {
    const partial = partialTagAt(tail);
    keep(tail.slice(0, partial));
    return { text, heldFrom: partial < tail.length || calls.length ? text.length : null, calls };
  }
  keep(tail);
  const before = settled.text.length;
  const inline = callAfterProse(settled.text + text);
  if (inline) {
    // It comes before any markup call found above (those are read from after `text`).
    const all = [...inline.calls, ...calls];
    if (inline.at < before) return { text: '', heldFrom: null, calls: all, settledKept: inline.at };
    return { text: text.slice(0, inline.at - before), heldFrom: null, calls: all };
  }
  return { text, heldFrom: null, calls };
}

function earliestOpener(
  s: string,
  from: number,
): { token: (typeof OPENERS)[number]; at: number } | undefined {
  let best: { token: (typeof OPENERS)[number]; at: number } | undefined;
  for (const token of OPENERS) {
    const at = s.indexOf(token, from);
    if (at >= 0 && (!best || at < best.at)) best = { token, at };
  }
  return best;
}

/** Where a suffix of `s` that is a proper prefix of a held tag begins (`s.length` when none does). */
function partialTagAt(s: string): number {
  const longest = Math.max(...HOLD_TAGS.map((t) => t.length));
  for (let i = Math.max(0, s.length - longest + 1); i < s.length; i++) {
    const rest = s.slice(i);
    if (HOLD_TAGS.some((t) => t.length > rest.length && t.startsWith(rest))) return i;
  }
  return s.length;
}

const CLOSERS = {
  '<tool_call>': '</tool_call>',
  '<function=': '</function>',
  '```': '```',
  '<|channel|>commentary': '<|call|>',
} as const;

/** The extent of the markup opened at `at` and its calls (none: it is text); undefined while still open. */
function resolve(
  token: (typeof OPENERS)[number],
  s: string,
  at: number,
  final: boolean,
): { end: number; calls: TextToolCall[] } | undefined {
  if (token === '[TOOL_CALLS]')
    return final ? { end: s.length, calls: mistralCalls(s.slice(at + token.length)) } : undefined;
  if (token === '<|python_tag|>')
    return final ? { end: s.length, calls: pythonTagCalls(s.slice(at + token.length)) } : undefined;
  const close = CLOSERS[token];
  const closeAt = s.indexOf(close, at + token.length);
  if (closeAt < 0 && !final) return undefined;
  const end = closeAt < 0 ? s.length : closeAt + close.length;
  if (token === '<tool_call>')
    return { end, calls: bodyCalls(s.slice(at + token.length, closeAt < 0 ? s.length : closeAt)) };
  if (token === '<function=') return { end, calls: xmlCalls(s.slice(at, end)) };
  if (token === '<|channel|>commentary')
    return { end, calls: harmonyCall(s.slice(at + token.length, closeAt < 0 ? s.length : closeAt)) };
  const inner = s.slice(at + 3, closeAt < 0 ? s.length : closeAt).replace(/^[\w-]*[ \t]*\n/, '');
  return { end, calls: jsonCalls(inner, true) ?? [] };
}

/** The calls of a Hermes `<tool_call>` body: JSON, Qwen3-Coder XML, or JSON cut short. */
function bodyCalls(body: string): TextToolCall[] {
  if (body.trim().startsWith('<function=')) return xmlCalls(body);
  const json = jsonCalls(body, true);
  if (json) return json;
  const loose = looseCall(body);
  return loose ? [loose] : [];
}

/**
 * `text` as a call object or a list of them, or null. `bareName`: a `{"name": …}` with no
 * arguments counts as a call (see `toCall`).
 */
export function jsonCalls(text: string, bareName = false): TextToolCall[] | null {
  try {
    return toCalls(JSON.parse(text), bareName);
  } catch {
    return null;
  }
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
 * `{name, arguments | parameters}` (or OpenAI's `{type, function: {…}}`) with object arguments.
 * Missing or null arguments are `{}` when `bareName` is set and the object is only an
 * identifier-like `name` (tools without parameters are called so); JSON text arguments are parsed.
 */
function toCall(v: unknown, bareName = false): TextToolCall | null {
  if (!isRecord(v)) return null;
  const call = isRecord(v['function']) ? v['function'] : v;
  const name = typeof call['name'] === 'string' ? call['name'].trim() : '';
  let args = call['arguments'] ?? call['parameters'];
  if (args === undefined || args === null) {
    if (!bareName || !IDENTIFIER.test(name) || !Object.keys(call).every((k) => BARE_CALL_KEYS.has(k)))
      return null;
    args = {};
  }
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args);
    } catch {
      return null;
    }
  }
  return name && isRecord(args) ? { name, arguments: JSON.stringify(args) } : null;
}

/** A call whose JSON was cut short or mangled: its name, and its arguments as far as they go. */
function looseCall(body: string): TextToolCall | null {
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
function jsonCallsAt(
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
function valueEnd(s: string, start: number): number {
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

/**
 * The first call object or list after prose ("Let me check: {…}", or on a line of its own) and
 * where the prose before it ends. Its arguments must be written out: other JSON with a `name` stays prose, and
 * JSON values that are not calls are skipped whole (a call nested in them is data).
 */
function callAfterProse(text: string): { at: number; calls: TextToolCall[] } | undefined {
  let from = 0;
  for (;;) {
    const at = text.slice(from).search(/[{[]/);
    if (at < 0) return undefined;
    const pos = from + at;
    const end = valueEnd(text, pos);
    if (end < 0) {
      from = pos + 1;
      continue;
    }
    const r = jsonCallsAt(text, pos, false);
    if (r && r !== 'partial') return { at: text.slice(0, pos).trimEnd().length, calls: r.calls };
    from = text[pos] === '[' ? pos + 1 : end;
  }
}

/**
 * Qwen3-Coder's `<function=NAME><parameter=P>V</parameter></function>`: a value that parses as a
 * JSON number, boolean, null, list or object becomes that, any other value a string. A body with
 * no `<parameter=` is the arguments' JSON text (kept raw when it does not parse, so the tool layer
 * reports it to the model).
 */
function xmlCalls(s: string): TextToolCall[] {
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
  try {
    const v: unknown = JSON.parse(raw);
    if (typeof v !== 'string') return v;
  } catch {
    // a plain string
  }
  return raw;
}

/** What follows Mistral's `[TOOL_CALLS]`: a JSON list of calls, or `name[ARGS]{…}` per call. */
function mistralCalls(rest: string): TextToolCall[] {
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

/**
 * gpt-oss's commentary channel addressed to a tool, from after `<|channel|>commentary` up to
 * `<|call|>`: ` to=functions.NAME <|constrain|>json<|message|>{…}`. A commentary message with no
 * recipient is a preamble, not a call.
 */
function harmonyCall(rest: string): TextToolCall[] {
  const m = /^([\s\S]*?)<\|message\|>([\s\S]*)$/.exec(rest);
  const name = m && /\bto=(?:functions\.)?([\w.-]+)/.exec(m[1])?.[1];
  if (!m || !name) return [];
  const args = m[2].trim();
  return [toCall({ name, arguments: args || '{}' }) ?? { name, arguments: args }];
}

/** What follows Llama's `<|python_tag|>`: JSON call objects (`;`-separated), or pythonic calls. */
function pythonTagCalls(rest: string): TextToolCall[] {
  const body = rest.replace(/<\|(?:eom_id|eot_id)\|>/g, '').trim();
  const json = jsonCallsAt(body, 0, true);
  if (json && json !== 'partial') return json.calls;
  return pythonicCalls(body.startsWith('[') ? body : `[${body}]`) ?? [];
}

/**
 * Llama 3.2 / 4 pythonic calls: `text` is only a list `[name(key=value, …), …]` whose names look
 * like identifiers and whose values are Python literals (strings, numbers, True/False/None, lists,
 * dicts). Null for anything else, positional arguments included.
 */
function pythonicCalls(text: string): TextToolCall[] | null {
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

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
