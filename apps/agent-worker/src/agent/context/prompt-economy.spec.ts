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
  // Six tools whose filter carries format, scanner, triage status, operator edits and archived
  // reports: about 1,470 tokens, which leaves some 2,600 of a 4,096-token window to the history and
  // the answer.
  it('keeps the system prompt and the six tool schemas within 1,480 tokens', () => {
    const tokens =
      countMessagesTokens([{ role: 'system', content: buildSystemPrompt() }]) +
      countToolsTokens(definitions());
    expect(tokens).toBeLessThanOrEqual(1480);
  });

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
