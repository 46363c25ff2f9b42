import 'reflect-metadata';
import { CorpusTools } from '@corpus-chat/corpus-queries';
import { countTokens as countO200k } from 'gpt-tokenizer/cjs/encoding/o200k_base';
import { KNOWN_TOKEN_COUNTS } from './known-token-counts';
import { buildSystemPrompt } from './system-prompt';
import { textKey } from './token-counter';

describe('KNOWN_TOKEN_COUNTS', () => {
  it('holds the exact count of the current system prompt and tool schemas (update the table with the entries shown when this fails)', () => {
    const tools = new CorpusTools(null as never, null as never, null as never).definitions();
    const texts = { 'buildSystemPrompt()': buildSystemPrompt(), 'JSON.stringify(CorpusTools.definitions())': JSON.stringify(tools) };
    const expected = Object.fromEntries(Object.values(texts).map((t) => [textKey(t), countO200k(t, { disallowedSpecial: new Set() })]));
    const stored = Object.fromEntries(Object.keys(expected).map((k) => [k, KNOWN_TOKEN_COUNTS[k]]));
    expect(stored).toEqual(expected);
  });
});
