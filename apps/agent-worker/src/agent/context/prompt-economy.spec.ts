/**
 * The fixed prefix of every model request (system prompt + tool schemas) is small and stable: small
 * local models often run with a 4,096-token context, and servers reuse their prefix (KV) cache only
 * when the prefix is byte-identical from request to request.
 */
import { CorpusTools } from '@corpus-chat/corpus-queries';
import 'reflect-metadata';
import { buildSystemPrompt } from './system-prompt';
import { countMessagesTokens, countToolsTokens } from './token-counter';

const definitions = () => new CorpusTools(null as never, null as never, null as never).definitions();

describe('prompt economy', () => {
  // On Ollama's default 4,096-token window the worker budgets 80 % (3,276): the prefix leaves some
  // 2,000 of them to the question, the history and the turn's tool results.
  it.each(['en', 'ru'] as const)(
    'keeps the system prompt (%s) and the six tool schemas within 1,200 tokens',
    (language) => {
      const tokens =
        countMessagesTokens([{ role: 'system', content: buildSystemPrompt(language) }]) +
        countToolsTokens(definitions());
      expect(tokens).toBeLessThanOrEqual(1200);
    },
  );

  it('sends a byte-identical prefix every time: no clock, ids or counters in it', () => {
    const first = JSON.stringify([buildSystemPrompt(), definitions()]);
    jest.useFakeTimers({ now: new Date('2031-01-01T00:00:00Z') });
    try {
      expect(JSON.stringify([buildSystemPrompt(), definitions()])).toBe(first);
    } finally {
      jest.useRealTimers();
    }
    expect(first).not.toMatch(/\b20\d\d-\d\d-\d\d|[0-9a-f]{8}-[0-9a-f]{4}-/);
  });
});
