import { LRUCache } from 'lru-cache';

/**
 * Counts of texts seen before (the system prompt, the tool schemas and the thread's history come
 * back on every turn and every model step): keyed by the text, bounded to about 4 M characters.
 */
const counted = new LRUCache<string, number>({
  maxSize: 4_000_000,
  sizeCalculation: (_n, text) => Math.max(1, text.length),
});

/** Texts shorter than this are counted without the memo (a lookup costs about what counting does). */
const MEMO_MIN_CHARS = 64;

/** Every special token is read as plain text (an operator's message or a report may contain one). */
const NO_SPECIAL_TOKENS = { disallowedSpecial: new Set<string>() };

type O200k = typeof import('gpt-tokenizer/cjs/encoding/o200k_base');
let tokenizer: O200k | undefined;

/**
 * The o200k_base tokenizer, loaded on first use: its vocabulary takes about 48 MiB of memory, and
 * a worker whose turns all fit the budget by `tokenBound` never needs it.
 */
function o200k(): O200k {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  tokenizer ??= require('gpt-tokenizer/cjs/encoding/o200k_base') as O200k;
  return tokenizer;
}

/**
 * Tokens of `text` under `o200k_base`, by `gpt-tokenizer` (bundled ranks; docs/benchmarks.md). Local
 * models' vocabularies differ by a few percent, which the budget allows for. Special-token text is
 * counted as text; long texts are counted in pieces ({@link countInChunks}) and memoised.
 */
export function countTokens(text: string): number {
  if (!text) return 0;
  if (text.length < MEMO_MIN_CHARS) return countInChunks(text);
  let n = counted.get(text);
  if (n === undefined) counted.set(text, (n = countInChunks(text)));
  return n;
}

/**
 * Characters counted at once. BPE merging is quadratic in the length of one pre-tokenized piece, and
 * a run of letters without spaces is one piece: a 100,000-letter message took seconds to count.
 */
const CHUNK_CHARS = 1000;

/**
 * `countTokens` of a long text, in pieces cut before a nearby space (exact for prose), else after
 * `CHUNK_CHARS`, never inside a surrogate pair.
 */
export function countInChunks(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length;) {
    let end = Math.min(text.length, i + CHUNK_CHARS);
    if (end < text.length) {
      const space = text.lastIndexOf(' ', end);
      if (space > i + CHUNK_CHARS / 2) end = space;
      else if (/[\ud800-\udbff]/.test(text[end - 1])) end--;
    }
    n += o200k().countTokens(text.slice(i, end), NO_SPECIAL_TOKENS);
    i = end;
  }
  return n;
}

/** An upper bound of `countTokens(text)` without a tokenizer: its UTF-8 byte length. */
export function tokenBound(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** Per-message framing tokens of the chat format (role and separators), as OpenAI documents for its chat models. */
export const TOKENS_PER_MESSAGE = 4;
/** Tokens that prime the assistant's reply. */
export const TOKENS_REPLY_PRIMING = 3;

export interface CountableMessage {
  role: string;
  content?: string | null | unknown;
  tool_calls?: unknown;
  tool_call_id?: string;
  /** Reasoning sent back within a turn's tool loop (templates render it into the prompt). */
  reasoning_content?: string;
  reasoning?: string;
}

/** A text measure: `countTokens` (exact) or `tokenBound` (upper bound, no tokenizer). */
export type TokenMeasure = (text: string) => number;

/** Tokens of one chat message: framing + content + the JSON of its tool calls (exact, or bounded with `measure = tokenBound`). */
export function countMessageTokens(m: CountableMessage, measure: TokenMeasure = countTokens): number {
  let n =
    TOKENS_PER_MESSAGE +
    measure(typeof m.content === 'string' ? m.content : m.content ? JSON.stringify(m.content) : '');
  if (m.tool_calls) n += measure(JSON.stringify(m.tool_calls));
  if (m.tool_call_id) n += measure(m.tool_call_id);
  if (m.reasoning_content) n += measure(m.reasoning_content);
  if (m.reasoning) n += measure(m.reasoning);
  return n;
}

/** Tokens of a whole request's messages (including reply priming). */
export function countMessagesTokens(
  messages: CountableMessage[],
  measure: TokenMeasure = countTokens,
): number {
  return messages.reduce((n, m) => n + countMessageTokens(m, measure), TOKENS_REPLY_PRIMING);
}

/** JSON of tool-schema arrays already serialised (the agent passes the same array every turn). */
const toolsJson = new WeakMap<unknown[], string>();

/** Tokens the tool schemas take (servers render them into the prompt; counted as their JSON). */
export function countToolsTokens(tools: unknown[], measure: TokenMeasure = countTokens): number {
  if (!tools.length) return 0;
  let json = toolsJson.get(tools);
  if (json === undefined) toolsJson.set(tools, (json = JSON.stringify(tools)));
  return measure(json);
}

/** `tokenBound` when it settles the comparison with `limit`, else the exact count (loading the tokenizer). */
export function tokensWithin(limit: number, measured: (measure: TokenMeasure) => number): number {
  const bound = measured(tokenBound);
  return bound <= limit ? bound : measured(countTokens);
}
