import { describeFilter } from '@corpus-chat/corpus-queries';
import { AgentTurnError, type HistoryMessage } from '@corpus-chat/server-core';
import type { AssistantMessageMetadata } from '@corpus-chat/contracts';
import { splitThink } from '../model/step-decoder';
import {
  countMessageTokens,
  countToolsTokens,
  TOKENS_REPLY_PRIMING,
  type TokenMeasure,
  countTokens,
  tokenBound,
} from './token-counter';

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
  budgetTokens: number;
  /** Tokens kept free for this turn's tool calls and results. */
  reserveTokens: number;
}

/** A history answer's text: its prose plus a note of its tools' filter, for "how many of those are high?". */
export function assistantHistoryText(m: HistoryMessage): string {
  const meta = m.metadata as Partial<AssistantMessageMetadata>;
  let text = withoutReasoning(m.content).trim();
  if (m.status === 'cancelled' && text) text += ' [answer interrupted]';
  if (text && meta.lastFilter && Object.keys(meta.lastFilter).length)
    text += `\n[filter used: ${describeFilter(meta.lastFilter)}]`;
  return text;
}

/** An answer's text without reasoning markup, split as `splitThink` splits a stream. */
export function withoutReasoning(text: string): string {
  return splitThink(text).answer;
}

/** Stands in for an answer without text: many local chat templates refuse two user messages in a row. */
export const NO_ANSWER_PLACEHOLDER = '[no answer: the turn was stopped or failed]';

/**
 * Groups history into turns, each ending with an assistant message (`NO_ANSWER_PLACEHOLDER` if
 * none), so two user messages never follow each other.
 */
export function groupTurns(history: HistoryMessage[]): ProseMessage[][] {
  const turns: ProseMessage[][] = [];
  const closeLast = () => {
    const last = turns[turns.length - 1];
    if (last && last[last.length - 1].role === 'user')
      last.push({ role: 'assistant', content: NO_ANSWER_PLACEHOLDER });
  };
  for (const m of history) {
    const msg: ProseMessage = {
      role: m.role,
      content: m.role === 'user' ? m.content : assistantHistoryText(m),
    };
    if (msg.role === 'assistant' && !msg.content) continue;
    if (msg.role === 'user') closeLast();
    if (msg.role === 'user' || turns.length === 0) turns.push([msg]);
    else turns[turns.length - 1].push(msg);
  }
  closeLast();
  return turns;
}

/**
 * Builds what the model sees within `budget`: the system prompt, as many recent whole turns as fit
 * (dropped oldest first, never cut; `keptTurns` and `droppedTurns` count them), and the new
 * message; `CONTEXT_OVERFLOW` when the fixed parts alone exceed it. When upper bounds
 * (`tokenBound`) already fit, nothing is counted, so short threads never load the tokenizer.
 */
export function buildModelContext(input: ContextInput) {
  const system: ProseMessage = { role: 'system', content: input.systemPrompt };
  const user: ProseMessage = { role: 'user', content: input.userMessage };
  const turns = groupTurns(input.history);
  const fixedOf = (measure: TokenMeasure) =>
    countToolsTokens(input.tools, measure) +
    countMessageTokens(system, measure) +
    countMessageTokens(user, measure) +
    TOKENS_REPLY_PRIMING;
  const historyBound = turns.reduce(
    (n, turn) => n + turn.reduce((k, m) => k + countMessageTokens(m, tokenBound), 0),
    0,
  );
  if (fixedOf(tokenBound) + historyBound <= input.budgetTokens - input.reserveTokens) {
    return { messages: [system, ...turns.flat(), user], keptTurns: turns.length, droppedTurns: 0 };
  }
  const fixed = fixedOf(countTokens);
  if (fixed > input.budgetTokens) {
    throw new AgentTurnError(
      'CONTEXT_OVERFLOW',
      `The message does not fit the model's context budget: the system prompt, tool schemas and the message need ${fixed} tokens and the budget is ${input.budgetTokens} (AGENT_CONTEXT_TOKENS). Shorten the message or raise the budget.`,
    );
  }
  let room = Math.max(0, input.budgetTokens - fixed - input.reserveTokens);
  const kept: ProseMessage[][] = [];
  for (let i = turns.length - 1; i >= 0; i--) {
    const cost = turns[i].reduce((n, m) => n + countMessageTokens(m), 0);
    if (cost > room) break;
    room -= cost;
    kept.unshift(turns[i]);
  }
  return {
    messages: [system, ...kept.flat(), user],
    keptTurns: kept.length,
    droppedTurns: turns.length - kept.length,
  };
}
