/**
 * Tool calls a model wrote into its answer text because the server's tool parser did not catch
 * them (no parser configured, a template the parser does not know, a small model's own format).
 */
import { harmonyCall, mistralCalls, pythonTagCalls, pythonicCalls, xmlCalls } from './tool-call-formats';
import { jsonCalls, jsonCallsAt, looseCall, valueEnd } from './tool-call-json';

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
 * Finds tool calls written as text in one step's answer, in the dialects of Hermes, Qwen3-Coder,
 * Llama 3.1, Functionary, Mistral, gpt-oss, JSON fences, pythonic lists and call objects. Other
 * markup stays in `text`. `final: false` marks where undecided markup starts. `settled` is the
 * answer text before `content` that an earlier scan found free of markup: `started` when it has
 * non-blank characters (so `content` does not start the answer); a final scan reads its `text` (a
 * call after prose may begin in it). Never throws.
 */
export function scanToolMarkup(
  content: string,
  final: boolean,
  settled: { started: boolean; text: string } = { started: false, text: '' },
): MarkupScan {
  const start = settled.started ? -1 : content.search(/\S/);
  if (start >= 0 && '{['.includes(content[start]) && !content.startsWith('[TOOL_CALLS]', start)) {
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
  const body = s.slice(at + token.length, closeAt < 0 ? s.length : closeAt);
  if (token === '<tool_call>') return { end, calls: bodyCalls(body) };
  if (token === '<function=') return { end, calls: xmlCalls(s.slice(at, end)) };
  if (token === '<|channel|>commentary') return { end, calls: harmonyCall(body) };
  // A fence: its info string ("json") is not part of the body.
  return { end, calls: jsonCalls(body.replace(/^[\w-]*[ \t]*\n/, ''), true) ?? [] };
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
 * The first call object or list after prose, and where the prose ends. Its arguments must be
 * written out; other JSON is skipped whole.
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
