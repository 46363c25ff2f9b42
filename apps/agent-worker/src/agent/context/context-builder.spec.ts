import { AgentTurnError, type HistoryMessage } from '@corpus-chat/server-core';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { StepDecoder } from '../model/step-decoder';
import { NO_ANSWER_PLACEHOLDER, buildModelContext, withoutReasoning } from './context-builder';
import { countMessagesTokens, countToolsTokens, countTokens } from './token-counter';
import { buildSystemPrompt } from './system-prompt';
import { TOOL_DEFINITIONS } from '@corpus-chat/contracts';

const tools = TOOL_DEFINITIONS.map((d) => ({ type: 'function', function: d }));

/** A thread of `n` turns; turn i asks about topic i and the answer stores its filter. */
function thread(n: number): HistoryMessage[] {
  const h: HistoryMessage[] = [];
  for (let i = 1; i <= n; i++) {
    h.push({
      role: 'user',
      content: `Question ${i}: how many findings relate to topic-${i}? ${'Some context words. '.repeat(i % 7)}`,
      status: 'complete',
      metadata: {},
    });
    h.push({
      role: 'assistant',
      content: `**${i * 3}** findings match the filter text='topic-${i}': search_findings returned total ${i * 3}.`,
      status: 'complete',
      metadata: { lastFilter: { text: `topic-${i}` } },
    });
  }
  return h;
}

describe('buildModelContext', () => {
  it('counts with a real tokenizer, not characters', () => {
    expect(countTokens('How many findings relate to SQL injection?')).toBeLessThan(15);
    expect(countTokens('antidisestablishmentarianism')).toBeGreaterThan(1);
  });

  it('keeps a 200-turn thread within the budget, newest turns first, whole turns only, new message last', () => {
    const history = thread(200);
    const ctx = buildModelContext({
      systemPrompt: buildSystemPrompt(),
      tools,
      history,
      userMessage: 'And how many of those are critical?',
      budgetTokens: 6000,
      reserveTokens: 1500,
    });
    expect(ctx.droppedTurns).toBeGreaterThan(100);
    expect(ctx.keptTurns + ctx.droppedTurns).toBe(200);
    const total = countMessagesTokens(ctx.messages) + countToolsTokens(tools);
    expect(total).toBeLessThanOrEqual(6000 - 1500);
    expect(ctx.messages[0].role).toBe('system');
    expect(ctx.messages.at(-1)).toEqual({ role: 'user', content: 'And how many of those are critical?' });
    // The previous answer (turn 200) is there with its filter, so the follow-up can resolve.
    const prev = ctx.messages.at(-2)!;
    expect(prev.role).toBe('assistant');
    expect(prev.content).toContain("text='topic-200'");
    expect(prev.content).toContain("[filter used: text='topic-200']");
    // Kept turns are the newest, contiguous, in order, each whole (a user message then its answer).
    const kept = ctx.messages.slice(1, -1);
    expect(kept.length).toBe(ctx.keptTurns * 2);
    const firstKept = 200 - ctx.keptTurns + 1;
    kept.forEach((m, i) => {
      const turn = firstKept + Math.floor(i / 2);
      expect(m.role).toBe(i % 2 === 0 ? 'user' : 'assistant');
      expect(m.content).toContain(i % 2 === 0 ? `Question ${turn}:` : `topic-${turn}'`);
    });
    // Adding the next older turn would have broken the budget.
    const older = thread(200).slice((200 - ctx.keptTurns - 1) * 2, (200 - ctx.keptTurns) * 2);
    const olderCost = countMessagesTokens(older.map((m) => ({ role: m.role, content: m.content }))) - 3;
    expect(total + olderCost).toBeGreaterThan(6000 - 1500 - 20);
  });

  it('always includes the new message, and fails clearly when it alone overflows', () => {
    const small = buildModelContext({
      systemPrompt: 'sys',
      tools: [],
      history: thread(3),
      userMessage: 'hi',
      budgetTokens: 30,
      reserveTokens: 0,
    });
    expect(small.messages.at(-1)!.content).toBe('hi');
    expect(small.keptTurns).toBe(0);
    expect(() =>
      buildModelContext({
        systemPrompt: buildSystemPrompt(),
        tools,
        history: [],
        userMessage: 'word '.repeat(20000),
        budgetTokens: 6000,
        reserveTokens: 0,
      }),
    ).toThrow(
      expect.objectContaining({ code: 'CONTEXT_OVERFLOW', message: expect.stringMatching(/budget is 6000/) }),
    );
    try {
      buildModelContext({
        systemPrompt: 'x',
        tools,
        history: [],
        userMessage: 'y',
        budgetTokens: 100,
        reserveTokens: 0,
      });
      throw new Error('expected overflow: the tool schemas alone exceed 100 tokens');
    } catch (e) {
      expect(e).toBeInstanceOf(AgentTurnError);
    }
  });

  it('stands in for an errored empty answer (never two user messages in a row) and marks an interrupted one', () => {
    const history: HistoryMessage[] = [
      { role: 'user', content: 'q1', status: 'complete', metadata: {} },
      { role: 'assistant', content: '', status: 'error', metadata: {} },
      { role: 'user', content: 'q2', status: 'complete', metadata: {} },
      { role: 'assistant', content: 'partial', status: 'cancelled', metadata: {} },
    ];
    const ctx = buildModelContext({
      systemPrompt: 's',
      tools: [],
      history,
      userMessage: 'q3',
      budgetTokens: 1000,
      reserveTokens: 0,
    });
    expect(ctx.messages.map((m) => [m.role, m.content])).toEqual([
      ['system', 's'],
      ['user', 'q1'],
      ['assistant', NO_ANSWER_PLACEHOLDER],
      ['user', 'q2'],
      ['assistant', 'partial [answer interrupted]'],
      ['user', 'q3'],
    ]);
  });

  it('closes a last turn that has no answer row at all, so the new message does not follow a user message', () => {
    const history: HistoryMessage[] = [{ role: 'user', content: 'q1', status: 'complete', metadata: {} }];
    const ctx = buildModelContext({
      systemPrompt: 's',
      tools: [],
      history,
      userMessage: 'q2',
      budgetTokens: 1000,
      reserveTokens: 0,
    });
    expect(ctx.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
  });

  it('keeps reasoning markup of older stored answers out of the history', () => {
    const history: HistoryMessage[] = [
      { role: 'user', content: 'q1', status: 'complete', metadata: {} },
      {
        role: 'assistant',
        content: '<think>count them</think>There are 77.',
        status: 'complete',
        metadata: {},
      },
      { role: 'user', content: 'q2', status: 'complete', metadata: {} },
      {
        role: 'assistant',
        content: 'the user wants X</think>\n\nThere are 5.',
        status: 'complete',
        metadata: {},
      },
    ];
    const ctx = buildModelContext({
      systemPrompt: 's',
      tools: [],
      history,
      userMessage: 'q3',
      budgetTokens: 1000,
      reserveTokens: 0,
    });
    expect(ctx.messages.filter((m) => m.role === 'assistant').map((m) => m.content)).toEqual([
      'There are 77.',
      'There are 5.',
    ]);
  });

  it('cuts a stored answer where the stream decoder cut it: at the first lone </think>, an open block is reasoning', () => {
    const stored = [
      'Plan: count.</think>There are 5 </think> findings.',
      'There are 5.<think>and then',
      '<think>a</think>Yes.</think> No.',
    ];
    for (const content of stored) {
      const decoder = new StepDecoder();
      decoder.push({
        choices: [{ index: 0, delta: { content }, finish_reason: null }],
      } as unknown as ChatCompletionChunk);
      expect(withoutReasoning(content).trim()).toBe(decoder.end().step.text);
    }
    expect(withoutReasoning('Plan: count.</think>There are 5 </think> findings.')).toBe(
      'There are 5  findings.',
    );
  });
});
