import { countTokens as wholeCount } from 'gpt-tokenizer/cjs/encoding/o200k_base';
import { countInChunks, countMessagesTokens, countTokens, countToolsTokens } from './token-counter';

const exact = (text: string) => wholeCount(text, { disallowedSpecial: new Set<string>() });

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
    const tools = [
      {
        type: 'function',
        function: { name: 'search_findings', description: 'Search findings', parameters: { type: 'object' } },
      },
    ];
    expect(countToolsTokens(tools)).toBe(countTokens(JSON.stringify(tools)));
    expect(countToolsTokens([])).toBe(0);
  });
});

describe('countInChunks', () => {
  it('counts prose exactly as a single pass does (cuts fall before a word)', () => {
    const prose = Array.from({ length: 3000 }, (_, i) => `word${i % 97} findings, CWE-${i % 89}; `).join('');
    expect(prose.length).toBeGreaterThan(20_000);
    expect(countInChunks(prose)).toBe(exact(prose));
  });

  it('counts a 100,000-letter run piece by piece, within a token per piece of the whole count', () => {
    const run = 'a'.repeat(100_000);
    const n = countInChunks(run);
    expect(n).toBeGreaterThanOrEqual(12_400);
    expect(n).toBeLessThanOrEqual(12_600);
    expect(countTokens(run)).toBe(n);
  });

  it('never splits a surrogate pair (a lone half would count as a replacement character)', () => {
    const emoji = '😀'.repeat(1500); // 3,000 UTF-16 units, no spaces: cut at 999, not 1,000
    expect(Math.abs(countInChunks(emoji) - exact(emoji))).toBeLessThanOrEqual(3);
    expect(countInChunks('x' + emoji)).toBeGreaterThan(0);
  });
});
