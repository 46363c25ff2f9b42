import { countMessagesTokens, countToolsTokens, type CountableMessage } from '../context/token-counter';

/** What an Ollama-like server made of a request's messages before the model saw them. */
export interface Truncation<M> {
  /** The messages the model sees. */
  messages: M[];
  /** Messages left out (0: the whole request fitted). */
  dropped: number;
  /** Tokens of the whole request as sent (the worker's tokenizer: the one its budget counts with). */
  promptTokens: number;
}

/**
 * Ollama's chat truncation (server/prompt.go `chatPrompt`, on by default: routes.go
 * `truncate := req.Truncate == nil || *req.Truncate`): when the rendered prompt exceeds `num_ctx`,
 * leave out messages from the front, one start index at a time, until it fits; the system messages
 * of the part left out are kept; a start index on a tool result moves back to the assistant message
 * that called it (`toolBlockStartIndex`), so no result is orphaned; the last message always stays.
 * No error reaches the client. Tokens are counted as the worker's budget counts them.
 */
export function ollamaTruncate<M extends CountableMessage>(
  messages: M[],
  tools: unknown[],
  numCtx: number,
): Truncation<M> {
  const promptTokens = countMessagesTokens(messages) + countToolsTokens(tools);
  for (let i = 0; i < messages.length; i++) {
    const start = toolBlockStart(messages, i);
    const kept = [...messages.slice(0, start).filter((m) => m.role === 'system'), ...messages.slice(start)];
    if (countMessagesTokens(kept) + countToolsTokens(tools) <= numCtx || i === messages.length - 1)
      return { messages: kept, dropped: messages.length - kept.length, promptTokens };
  }
  return { messages, dropped: 0, promptTokens };
}

function toolBlockStart(messages: CountableMessage[], i: number): number {
  if (i <= 0 || messages[i].role !== 'tool') return i;
  let start = i;
  while (start > 0 && messages[start - 1].role === 'tool') start--;
  const caller = messages[start - 1];
  return caller?.role === 'assistant' && Array.isArray(caller.tool_calls) && caller.tool_calls.length
    ? start - 1
    : i;
}
