import type { OperatorLanguage } from '@corpus-chat/contracts';
import { tryJson } from '../model/tool-call-json';
import {
  countMessageTokens,
  countMessagesTokens,
  countToolsTokens,
  countTokens,
  tokenBound,
  tokensWithin,
  type CountableMessage,
  type TokenMeasure,
} from './token-counter';

/**
 * Fitting tool results into the request: a 4,096-token window cannot hold a 41-report list beside
 * the prompt, and a server that truncates silently would drop the question.
 */

/** How hard a result is shortened, level by level: items kept per list, characters kept per text. */
const LEVELS = [
  { rows: 20, chars: 300 },
  { rows: 10, chars: 160 },
  { rows: 5, chars: 100 },
  { rows: 3, chars: 60 },
  { rows: 1, chars: 40 },
  { rows: 0, chars: 30 },
] as const;
type Level = (typeof LEVELS)[number];

/**
 * `content` (a tool result's JSON) within `maxTokens`: lists cut (a sibling `<name>Omitted` counts
 * the rest) and long texts clipped level by level. Numbers never change. May still be over.
 */
export function compactToolResult(
  content: string,
  maxTokens: number,
  measure: TokenMeasure = countTokens,
): string {
  if (measure(content) <= maxTokens) return content;
  const value = tryJson(content) ?? content;
  let shortest = content;
  for (const level of LEVELS) {
    shortest = JSON.stringify(shorten(value, level));
    if (measure(shortest) <= maxTokens) break;
  }
  return shortest;
}

function shorten(v: unknown, level: Level): unknown {
  if (typeof v === 'string') return v.length > level.chars ? `${v.slice(0, level.chars)}…` : v;
  if (Array.isArray(v)) return v.slice(0, level.rows).map((x) => shorten(x, level));
  if (!v || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  const cut: string[] = [];
  for (const [k, x] of Object.entries(v)) {
    out[k] = shorten(x, level);
    if (!Array.isArray(x) || x.length <= level.rows) continue;
    out[`${k}Omitted`] = x.length - level.rows;
    cut.push('truncated', `${k}Truncated`);
  }
  // The results' own flags (`truncated`, `perReportTruncated`) must not say a cut list is whole.
  for (const flag of cut) if (flag in out) out[flag] = true;
  return out;
}

/**
 * A request's messages as far as fitting goes: the prompt (system, history, the new message) and this
 * turn's loop.
 */
export interface FitInput<M extends CountableMessage> {
  /** System prompt, the history turns kept so far (oldest first), the operator's new message. */
  prompt: M[];
  /** This turn's messages so far, ending with the assistant message that made the calls. */
  loop: CountableMessage[];
  /** The new tool results (JSON text), one per call, with their call ids. */
  results: { toolCallId: string; content: string }[];
  tools: unknown[];
  budget: number;
}

/**
 * Makes room for a step's tool results within `budget`, keeping the lesser of half the room left or
 * a quarter of the budget for later steps; results share the rest by water-filling. Old history
 * turns go first, then results are shortened with `compactToolResult`; `contents` are the results as
 * the model gets them.
 */
export function fitToolResults<M extends CountableMessage>(input: FitInput<M>) {
  // Upper bounds settle the common case (everything fits untouched) without loading the tokenizer.
  const bounded = fitWith(input, tokenBound);
  return bounded.droppedTurns || bounded.compacted ? fitWith(input, countTokens) : bounded;
}

function fitWith<M extends CountableMessage>(input: FitInput<M>, measure: TokenMeasure) {
  let prompt = input.prompt;
  let droppedTurns = 0;
  const resultTokens = (content: string, id: string) =>
    countMessageTokens({ role: 'tool', content, tool_call_id: id }, measure);
  const available = () => {
    const room =
      input.budget -
      countMessagesTokens([...prompt, ...input.loop], measure) -
      countToolsTokens(input.tools, measure);
    return room - Math.min(room / 2, input.budget / 4);
  };
  const sizes = input.results.map((r) => resultTokens(r.content, r.toolCallId));
  const full = sizes.reduce((n, k) => n + k, 0);
  // Old turns go before any result is shortened.
  while (full > available() && prompt.length > 2) {
    prompt = withoutOldestTurn(prompt);
    droppedTurns++;
  }
  let left = available();
  let compacted = 0;
  const contents = input.results.map((r) => r.content);
  const smallestFirst = sizes.map((_, i) => i).sort((a, b) => sizes[a] - sizes[b]);
  smallestFirst.forEach((i, k) => {
    const { toolCallId, content } = input.results[i];
    const share = Math.floor(left / (smallestFirst.length - k)) - resultTokens('', toolCallId);
    contents[i] = compactToolResult(content, Math.max(0, share), measure);
    if (contents[i] !== content) compacted++;
    left -= resultTokens(contents[i], toolCallId);
  });
  return { prompt, contents, droppedTurns, compacted };
}

/**
 * `prompt` without its oldest history turn (the messages after the system prompt up to the next user
 * message).
 */
function withoutOldestTurn<M extends CountableMessage>(prompt: M[]): M[] {
  const next = prompt.findIndex((m, i) => i > 1 && m.role === 'user');
  return [prompt[0], ...prompt.slice(next)];
}

/** Tokens a request of `messages` and `tools` takes (exact only when the byte bound exceeds `budget`). */
export function requestTokens(messages: CountableMessage[], tools: unknown[], budget: number): number {
  return tokensWithin(budget, (m) => countMessagesTokens(messages, m) + countToolsTokens(tools, m));
}

/** The answer when even a shortened request does not fit: in the operator's language, without numbers. */
export function contextOverflowAnswer(language: OperatorLanguage | undefined, setting: string): string {
  return language === 'ru'
    ? `Не могу ответить: данные, нужные для этого вопроса, не помещаются в контекстное окно модели даже в сокращённом виде. Задайте более узкий вопрос (об одном отчёте, одной критичности или одной теме) или увеличьте контекстное окно сервера модели (${setting}).`
    : `I can't answer this: the data this question needs does not fit the model's context window, even shortened. Ask a narrower question (one report, one severity or one topic), or raise the model server's context window (${setting}).`;
}
