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
  /** When a call ending the answer begins inside the settled text: how many of its characters stay answer text. */
  settledKept?: number;
}

/** Answer text before the scanned content that an earlier scan found free of markup. */
export interface SettledText {
  /** It has non-blank characters, so the content is not the start of the answer. */
  started: boolean;
  /** The text itself; read only by a final scan (a call ending the answer may begin in it). */
  text: string;
}

/** Markup whose content is only known once it is closed (or the stream ends). */
const OPENERS = ['<tool_call>', '<function=', '```', '[TOOL_CALLS]'] as const;
/**
 * Tags a partial suffix of the text may be the start of; held until the next characters decide.
 * The reasoning tags (`<think>`, gpt-oss channel markers) are taken out before the scan.
 */
const HOLD_TAGS = [
  '<think>',
  '</think>',
  '<|channel|>analysis<|message|>',
  '<|channel|>final<|message|>',
  '<|start|>assistant',
  '<|end|>',
  '<|return|>',
  ...OPENERS,
];

/**
 * Finds the tool calls in `content`, the answer text of one step: Hermes `<tool_call>` blocks
 * (JSON or Qwen3-Coder XML inside; an unclosed one runs to the end), bare Qwen3-Coder
 * `<function=…>` blocks, ```json fences holding a call, Mistral `[TOOL_CALLS]` (a JSON list, or
 * `name[ARGS]{…}`), a content that is only a call object or list (`arguments` or Llama's
 * `parameters`), and a call object ending the content on a line of its own. Markup that is not a
 * call stays in `text`. `final: false` (streaming) marks where undecided markup starts instead of
 * judging it; `final: true` judges everything. `settled`: the answer text before `content`, not
 * scanned again. Never throws.
 */
export function scanToolMarkup(content: string, final: boolean, settled: SettledText = { started: false, text: '' }): MarkupScan {
  const start = settled.started ? -1 : content.search(/\S/);
  if (start >= 0 && (content[start] === '{' || content[start] === '[') && !content.startsWith('[TOOL_CALLS]', start)) {
    const r = jsonCallsAt(content, start);
    if (r === 'partial' && !final) return { text: '', heldFrom: 0, calls: [] };
    if (r === 'partial') {
      const loose = looseCall(content);
      if (loose) return { text: '', heldFrom: null, calls: [loose] };
    } else if (r && !content.slice(r.end).trim()) {
      // A lone call may yet be followed by prose, which would make it an answer that shows JSON.
      return final ? { text: '', heldFrom: null, calls: r.calls } : { text: '', heldFrom: 0, calls: [] };
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
  if (!calls.length) {
    const before = settled.text.length;
    const trailing = trailingCall(settled.text + text);
    if (trailing && trailing.at < before) return { text: '', heldFrom: null, calls: trailing.calls, settledKept: trailing.at };
    if (trailing) return { text: text.slice(0, trailing.at - before), heldFrom: null, calls: trailing.calls };
  }
  return { text, heldFrom: null, calls };
}

function earliestOpener(s: string, from: number): { token: (typeof OPENERS)[number]; at: number } | undefined {
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

/** The extent of the markup opened at `at` and its calls (none: it is text); undefined while still open. */
function resolve(token: (typeof OPENERS)[number], s: string, at: number, final: boolean): { end: number; calls: TextToolCall[] } | undefined {
  if (token === '[TOOL_CALLS]') return final ? { end: s.length, calls: mistralCalls(s.slice(at + token.length)) } : undefined;
  const close = token === '<tool_call>' ? '</tool_call>' : token === '<function=' ? '</function>' : '```';
  const closeAt = s.indexOf(close, at + token.length);
  if (closeAt < 0 && !final) return undefined;
  const end = closeAt < 0 ? s.length : closeAt + close.length;
  if (token === '<tool_call>') return { end, calls: bodyCalls(s.slice(at + token.length, closeAt < 0 ? s.length : closeAt)) };
  if (token === '<function=') return { end, calls: xmlCalls(s.slice(at, end)) };
  const inner = s.slice(at + 3, closeAt < 0 ? s.length : closeAt).replace(/^[\w-]*[ \t]*\n/, '');
  return { end, calls: jsonCalls(inner) ?? [] };
}

/** The calls of a Hermes `<tool_call>` body: JSON, Qwen3-Coder XML, or JSON cut short. */
function bodyCalls(body: string): TextToolCall[] {
  if (body.trim().startsWith('<function=')) return xmlCalls(body);
  const json = jsonCalls(body);
  if (json) return json;
  const loose = looseCall(body);
  return loose ? [loose] : [];
}

/** `text` as a call object or a list of them, or null. */
export function jsonCalls(text: string): TextToolCall[] | null {
  try {
    return toCalls(JSON.parse(text));
  } catch {
    return null;
  }
}

function toCalls(v: unknown): TextToolCall[] | null {
  const list = Array.isArray(v) ? v : [v];
  const calls = list.map(toCall);
  return calls.length && calls.every((c) => c) ? (calls as TextToolCall[]) : null;
}

/** `{name, arguments | parameters}` (or OpenAI's `{type, function: {…}}`) with object arguments. */
function toCall(v: unknown): TextToolCall | null {
  if (!isRecord(v)) return null;
  const call = isRecord(v['function']) ? v['function'] : v;
  const name = typeof call['name'] === 'string' ? call['name'].trim() : '';
  let args = call['arguments'] ?? call['parameters'];
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
function jsonCallsAt(s: string, start: number): { calls: TextToolCall[]; end: number } | 'partial' | null {
  const calls: TextToolCall[] = [];
  let pos = start;
  let end = start;
  while (s[pos] === '{' || s[pos] === '[') {
    const valueEnd_ = valueEnd(s, pos);
    if (valueEnd_ < 0) return 'partial';
    const found = jsonCalls(s.slice(pos, valueEnd_));
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

/** A call list ending `text` on lines of its own, after prose ("Let me check.\n{…}"). */
function trailingCall(text: string): { at: number; calls: TextToolCall[] } | undefined {
  for (const m of text.matchAll(/(?:^|\n)[ \t]*(?=[{[])/g)) {
    const at = m.index + m[0].length;
    const r = jsonCallsAt(text, at);
    if (r && r !== 'partial' && !text.slice(r.end).trim()) return { at: m.index, calls: r.calls };
  }
  return undefined;
}

/**
 * Qwen3-Coder's `<function=NAME><parameter=P>V</parameter></function>`: a value that parses as a
 * JSON number, boolean, null, list or object becomes that, any other value a string.
 */
function xmlCalls(s: string): TextToolCall[] {
  const calls: TextToolCall[] = [];
  for (const f of s.matchAll(/<function=([^>\n]+)>([\s\S]*?)(?:<\/function>|$)/g)) {
    const args: Record<string, unknown> = {};
    for (const p of f[2].matchAll(/<parameter=([^>\n]+)>([\s\S]*?)(?:<\/parameter>|(?=<parameter=)|$)/g)) {
      args[p[1].trim()] = xmlValue(p[2].replace(/^\n/, '').replace(/\n$/, ''));
    }
    const name = f[1].trim();
    if (name) calls.push({ name, arguments: JSON.stringify(args) });
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
  if (trimmed.startsWith('[') || trimmed.startsWith('{')) return jsonCalls(trimmed) ?? [];
  const calls: TextToolCall[] = [];
  for (const piece of trimmed.split('[TOOL_CALLS]')) {
    const m = /^\s*([\w.-]+)(?:\[CALL_ID\][^[]*)?\[ARGS\]([\s\S]*)$/.exec(piece);
    if (!m) continue;
    const args = m[2].trim();
    calls.push(toCall({ name: m[1], arguments: args || '{}' }) ?? { name: m[1], arguments: args });
  }
  return calls;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
