import { countTokens as countO200k } from 'gpt-tokenizer/cjs/encoding/o200k_base';
import { LRUCache } from 'lru-cache';

/**
 * Counts of texts seen before (the system prompt, the tool schemas and the thread's history come
 * back on every turn and every model step): keyed by the text, bounded to about 4 M characters.
 */
const counted = new LRUCache<string, number>({ maxSize: 4_000_000, sizeCalculation: (_n, text) => Math.max(1, text.length) });

/** Every special token is read as plain text (an operator's message or a report may contain one). */
const NO_SPECIAL_TOKENS = { disallowedSpecial: new Set<string>() };

/** Texts shorter than this are counted directly (hashing them costs about what counting does). */
const MEMO_MIN_CHARS = 64;

/**
 * Tokens of `text` under OpenAI's `o200k_base` BPE, counted by `gpt-tokenizer` (its ranks ship inside
 * the package: nothing is downloaded at run time; the same counts as tiktoken, in about a third of
 * the memory and several times faster — docs/benchmarks.md). Local models use other vocabularies,
 * so counts are an estimate within a few percent of theirs; the budget leaves room for that. Text
 * that looks like a special token (`<|endoftext|>`) is counted as ordinary text, never refused.
 */
export function countTokens(text: string): number {
  if (!text) return 0;
  if (text.length < MEMO_MIN_CHARS) return countO200k(text, NO_SPECIAL_TOKENS);
  const known = counted.get(text);
  if (known !== undefined) return known;
  const n = countO200k(text, NO_SPECIAL_TOKENS);
  counted.set(text, n);
  return n;
}

/** Per-message framing tokens of the chat format (role and separators), as OpenAI documents for its chat models. */
export const TOKENS_PER_MESSAGE = 4;
/** Tokens that prime the assistant's reply. */
export const TOKENS_REPLY_PRIMING = 3;

/** A chat message as far as counting goes. */
export interface CountableMessage {
  role: string;
  content?: string | null | unknown;
  tool_calls?: unknown;
  tool_call_id?: string;
}

/** Tokens of one chat message: framing + content + the JSON of its tool calls. */
export function countMessageTokens(m: CountableMessage): number {
  let n = TOKENS_PER_MESSAGE + countTokens(typeof m.content === 'string' ? m.content : m.content ? JSON.stringify(m.content) : '');
  if (m.tool_calls) n += countTokens(JSON.stringify(m.tool_calls));
  if (m.tool_call_id) n += countTokens(m.tool_call_id);
  return n;
}

/** Tokens of a whole request's messages (including reply priming). */
export function countMessagesTokens(messages: CountableMessage[]): number {
  return messages.reduce((n, m) => n + countMessageTokens(m), TOKENS_REPLY_PRIMING);
}

/** Tokens the tool schemas take (servers render them into the prompt; counted as their JSON). */
export function countToolsTokens(tools: unknown[]): number {
  return tools.length ? countTokens(JSON.stringify(tools)) : 0;
}
