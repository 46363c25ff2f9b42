import { AgentTurnError, type HistoryMessage } from '@corpus-chat/server-core';
import type { AssistantMessageMetadata } from '@corpus-chat/contracts';
import { describeFilter } from '../tools/tool-format';
import { countMessageTokens, countToolsTokens, TOKENS_REPLY_PRIMING } from './token-counter';

/** A prose chat message as sent to the model (no tool calls: history never carries them). */
export interface ProseMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ContextInput {
  systemPrompt: string;
  /** Tool definitions as sent in the request (they count against the budget). */
  tools: unknown[];
  /** Prior messages of the thread, oldest first. */
  history: HistoryMessage[];
  /** The operator's new message (always included). */
  userMessage: string;
  /** Total token budget of the request. */
  budgetTokens: number;
  /** Tokens kept free for this turn's tool calls and results. */
  reserveTokens: number;
}

export interface ModelContext {
  /** System prompt, the history that fit (oldest first), the new user message. */
  messages: ProseMessage[];
  /** Tokens of `messages` plus the tool schemas. */
  tokens: number;
  /** How many whole turns of the history fit, and how many were dropped (oldest first). */
  keptTurns: number;
  droppedTurns: number;
}

/**
 * The text an assistant message of the history contributes: its prose, plus a one-line note of the
 * filter its tools used (so a model can resolve "how many of those are high?" from the text alone).
 * Empty for an errored answer with no text.
 */
export function assistantHistoryText(m: HistoryMessage): string {
  const meta = m.metadata as Partial<AssistantMessageMetadata>;
  let text = m.content.trim();
  if (m.status === 'cancelled' && text) text += ' [answer interrupted]';
  if (text && meta.lastFilter && Object.keys(meta.lastFilter).length) text += `\n[filter used: ${describeFilter(meta.lastFilter)}]`;
  return text;
}

/** Groups the history into turns: each user message with the assistant message(s) that follow it. */
export function groupTurns(history: HistoryMessage[]): ProseMessage[][] {
  const turns: ProseMessage[][] = [];
  for (const m of history) {
    const msg: ProseMessage | null =
      m.role === 'user' ? { role: 'user', content: m.content } : assistantHistoryText(m) ? { role: 'assistant', content: assistantHistoryText(m) } : null;
    if (!msg) continue;
    if (msg.role === 'user' || turns.length === 0) turns.push([msg]);
    else turns[turns.length - 1].push(msg);
  }
  return turns;
}

/**
 * Builds what the model sees within a token budget: the system prompt, then as many of the most
 * recent whole turns as fit in `budget - system - tools - new message - reserve`, then the new
 * message. Turns are dropped oldest first and never cut. Throws `AgentTurnError('CONTEXT_OVERFLOW')`
 * when the system prompt, tool schemas and the new message alone exceed the budget.
 */
export function buildModelContext(input: ContextInput): ModelContext {
  const system: ProseMessage = { role: 'system', content: input.systemPrompt };
  const user: ProseMessage = { role: 'user', content: input.userMessage };
  const fixed = countToolsTokens(input.tools) + countMessageTokens(system) + countMessageTokens(user) + TOKENS_REPLY_PRIMING;
  if (fixed > input.budgetTokens) {
    throw new AgentTurnError(
      'CONTEXT_OVERFLOW',
      `The message does not fit the model's context budget: the system prompt, tool schemas and the message need ${fixed} tokens and the budget is ${input.budgetTokens} (AGENT_CONTEXT_TOKENS). Shorten the message or raise the budget.`,
    );
  }
  let room = Math.max(0, input.budgetTokens - fixed - input.reserveTokens);
  let tokens = fixed;
  const turns = groupTurns(input.history);
  const kept: ProseMessage[][] = [];
  for (let i = turns.length - 1; i >= 0; i--) {
    const cost = turns[i].reduce((n, m) => n + countMessageTokens(m), 0);
    if (cost > room) break;
    room -= cost;
    tokens += cost;
    kept.unshift(turns[i]);
  }
  return { messages: [system, ...kept.flat(), user], tokens, keptTurns: kept.length, droppedTurns: turns.length - kept.length };
}
