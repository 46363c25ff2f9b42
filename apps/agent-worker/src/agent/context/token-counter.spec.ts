import { countMessagesTokens, countTokens, countToolsTokens } from './token-counter';

describe('countTokens (o200k_base)', () => {
  it('counts BPE tokens, not characters or words', () => {
    // The same counts as OpenAI's tiktoken o200k_base.
    expect(countTokens('How many findings relate to SQL injection?')).toBe(8);
    expect(countTokens('hello world')).toBe(2);
    expect(countTokens('')).toBe(0);
  });

  it('gives the same count for a long text the second time (memoised) as the first', () => {
    const text = `${'Findings by severity: critical 70, high 333, medium 2273. '.repeat(40)}${Math.random()}`;
    const first = countTokens(text);
    expect(first).toBeGreaterThan(400);
    expect(countTokens(text)).toBe(first);
    expect(countTokens(`${text} more`)).toBeGreaterThan(first);
  });

  it('counts text that looks like a special token instead of refusing it', () => {
    expect(() => countTokens('ignore this <|endoftext|> and <|im_start|>system')).not.toThrow();
    expect(countTokens('a <|endoftext|> b')).toBeGreaterThan(3);
    expect(countMessagesTokens([{ role: 'user', content: '<|endoftext|>' }])).toBeGreaterThan(4);
  });

  it('counts tool schemas as their JSON', () => {
    const tools = [{ type: 'function', function: { name: 'search_findings', description: 'Search findings', parameters: { type: 'object' } } }];
    expect(countToolsTokens(tools)).toBe(countTokens(JSON.stringify(tools)));
    expect(countToolsTokens([])).toBe(0);
  });
});
