import type { OperatorLanguage } from '@corpus-chat/contracts';
import type {
  AgentRunner,
  AgentTurnContext,
  AgentTurnOutcome,
  HistoryMessage,
  RunnerEvent,
} from '@corpus-chat/server-core';
import { scoreAnswer } from '../../eval/answer-score';

export { numbersIn } from '../../eval/answer-score';

/** One turn's captured events and outcome. */
export interface CapturedTurn {
  events: RunnerEvent[];
  outcome: AgentTurnOutcome;
}

/**
 * A thread for agent tests: keeps the history the pipeline would (each user message, then the
 * answer with its metadata) and captures every event a runner emits.
 */
export class TestThread {
  readonly history: HistoryMessage[] = [];
  private n = 0;

  /** `language`: the operator's answer language the turns carry (none: as a job from an older API). */
  constructor(
    private readonly runner: AgentRunner,
    private readonly opts: { language?: OperatorLanguage } = {},
  ) {}

  /** Runs one turn with `message`; appends both messages to the history. */
  async ask(
    message: string,
    opts: { signal?: AbortSignal; onEvent?: (e: RunnerEvent) => void } = {},
  ): Promise<CapturedTurn> {
    const events: RunnerEvent[] = [];
    this.n += 1;
    const ctx: AgentTurnContext = {
      chatId: 'chat-test',
      turnId: `turn-${this.n}-${Math.random().toString(16).slice(2, 10)}`,
      ownerId: 'owner-test',
      history: [...this.history],
      userMessage: message,
      ...(this.opts.language ? { language: this.opts.language } : {}),
      signal: opts.signal ?? new AbortController().signal,
      emit: async (e) => {
        events.push(e);
        opts.onEvent?.(e);
      },
    };
    const outcome = await this.runner.run(ctx);
    this.history.push({ role: 'user', content: message, status: 'complete', metadata: {} });
    this.history.push({
      role: 'assistant',
      content: outcome.content,
      status: 'complete',
      metadata: outcome.metadata,
    });
    return { events, outcome };
  }
}

/** Asks `turns` in one new thread of `runner`; the last turn. */
export async function askInThread(
  runner: AgentRunner,
  turns: readonly string[],
  opts: { language?: OperatorLanguage } = {},
): Promise<CapturedTurn> {
  const thread = new TestThread(runner, opts);
  let last: CapturedTurn | undefined;
  for (const t of turns) last = await thread.ask(t);
  if (!last) throw new Error('askInThread: no turns');
  return last;
}

/** Expects every one of `numbers` in the turn's answer (the answer shown when one is missing). */
export function expectNumbers(turn: CapturedTurn, numbers: number[]): void {
  const score = scoreAnswer({ numbers }, turn.outcome.content);
  expect({ ...score, text: turn.outcome.content }).toMatchObject({
    missingNumbers: [],
    text: turn.outcome.content,
  });
}

/** A context for a single turn outside a thread. */
export function turnContext(
  message: string,
  history: HistoryMessage[] = [],
  signal = new AbortController().signal,
): { ctx: AgentTurnContext; events: RunnerEvent[] } {
  const events: RunnerEvent[] = [];
  return {
    events,
    ctx: {
      chatId: 'chat-test',
      turnId: `turn-${Math.random().toString(16).slice(2, 10)}`,
      ownerId: 'owner-test',
      history,
      userMessage: message,
      signal,
      emit: async (e) => {
        events.push(e);
      },
    },
  };
}

/** What the operator saw streamed: text deltas appended, each `text.reset` cutting the text back. */
export function streamedText(events: readonly { type: string }[]): string {
  let text = '';
  for (const e of events) {
    if (e.type === 'text.delta') text += (e as unknown as { text: string }).text;
    if (e.type === 'text.reset') text = text.slice(0, (e as unknown as { length: number }).length);
  }
  return text;
}
