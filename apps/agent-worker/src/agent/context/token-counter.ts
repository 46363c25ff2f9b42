import { getEncoding, type Tiktoken } from 'js-tiktoken';

let encoding: Tiktoken | undefined;

/**
 * The tokenizer used for the context budget: OpenAI's `o200k_base` BPE, whose ranks ship inside the
 * `js-tiktoken` package (nothing is downloaded at run time). Local models use other vocabularies,
 * so counts are an estimate within a few percent of theirs; the budget leaves room for that.
 * Loaded on first use (about half a second), then shared.
 */
export function tokenizer(): Tiktoken {
  encoding ??= getEncoding('o200k_base');
  return encoding;
}

/** Tokens of `text`. */
export function countTokens(text: string): number {
  return text ? tokenizer().encode(text).length : 0;
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
