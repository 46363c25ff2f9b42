/**
 * The tokenizer (about 48 MiB) is loaded only when a cheap upper bound cannot settle the budget:
 * a short thread is built without it, a long one loads it, and both give what exact counting gives.
 * Its own file, so no other test has loaded the tokenizer in this module registry.
 */
import { CorpusTools } from '@corpus-chat/corpus-queries';
import 'reflect-metadata';
import type { HistoryMessage } from '@corpus-chat/server-core';
import { buildModelContext } from './context-builder';
import { buildSystemPrompt } from './system-prompt';
import { countMessagesTokens, countToolsTokens, tokenBound, tokensWithin } from './token-counter';

// Jest runs a mock factory when the module is first required: that is the moment of loading.
let mockTokenizerLoaded = false;
jest.mock('gpt-tokenizer/cjs/encoding/o200k_base', () => {
  mockTokenizerLoaded = true;
  return jest.requireActual('gpt-tokenizer/cjs/encoding/o200k_base');
});
const tokenizerLoaded = (): boolean => mockTokenizerLoaded;

const tools = new CorpusTools(null as never, null as never, null as never).definitions();
const thread = (turns: number, words = 20): HistoryMessage[] =>
  Array.from({ length: turns }, (_, i): HistoryMessage[] => [
    {
      role: 'user',
      content: `Question ${i}: how many findings mention ${'cookies '.repeat(words)}?`,
      status: 'complete',
      metadata: {},
    },
    {
      role: 'assistant',
      content: `There are ${i} findings. ${'Details follow. '.repeat(words)}`,
      status: 'complete',
      metadata: {},
    },
  ]).flat();

describe('the tokenizer is loaded lazily', () => {
  it('builds a short thread within the budget, and checks a step, without loading it', () => {
    // The bound is the texts' UTF-8 bytes: the prompt and schemas alone are ~4,900 of them.
    const ctx = buildModelContext({
      systemPrompt: buildSystemPrompt(),
      tools,
      history: thread(3),
      userMessage: 'How many findings mention cookies?',
      budgetTokens: 12000,
      reserveTokens: 1500,
    });
    expect(ctx.keptTurns).toBe(3);
    expect(ctx.droppedTurns).toBe(0);
    const used = tokensWithin(
      12000,
      (m) => countMessagesTokens(ctx.messages, m) + countToolsTokens(tools, m),
    );
    expect(used).toBeLessThanOrEqual(12000);
    expect(tokenizerLoaded()).toBe(false);

    // Counting exactly loads it; the bound was never below the exact count.
    const exact = countMessagesTokens(ctx.messages) + countToolsTokens(tools);
    expect(tokenizerLoaded()).toBe(true);
    expect(used).toBeGreaterThanOrEqual(exact);
  });

  it('a long thread is trimmed by exact counts, as before', () => {
    const ctx = buildModelContext({
      systemPrompt: buildSystemPrompt(),
      tools,
      history: thread(60),
      userMessage: 'And the high ones?',
      budgetTokens: 6000,
      reserveTokens: 1500,
    });
    expect(ctx.droppedTurns).toBeGreaterThan(0);
    const tokens = countMessagesTokens(ctx.messages) + countToolsTokens(tools);
    expect(tokens).toBeLessThanOrEqual(6000 - 1500);
    // One more turn would not have fitted.
    const next = thread(60).slice(-(ctx.keptTurns + 1) * 2, -ctx.keptTurns * 2);
    expect(tokens + countMessagesTokens(next) - 3).toBeGreaterThan(6000 - 1500);
  });

  it('the bound is never below the exact count (any script, emoji, special-token text, lone surrogates)', () => {
    const samples = [
      'hello world',
      'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
      '日本語のテキストと😀🎉 emoji',
      '<|endoftext|><|im_start|>system',
      '\ud800 lone \udfff',
      ' \n\t  '.repeat(30),
      JSON.stringify(tools),
    ];
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 200; i++)
      samples.push(
        Array.from({ length: 1 + Math.floor(rand() * 80) }, () =>
          String.fromCodePoint(Math.floor(rand() * 0x2ffff)),
        ).join(''),
      );
    for (const s of samples)
      expect(tokenBound(s)).toBeGreaterThanOrEqual(countMessagesTokens([{ role: 'user', content: s }]) - 7);
  });
});
