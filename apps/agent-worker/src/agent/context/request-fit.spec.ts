import { ollamaTruncate } from '../testing/ollama-truncation';
import { compactToolResult, fitToolResults } from './request-fit';
import { countMessageTokens, countMessagesTokens, countTokens } from './token-counter';

const reports = Array.from({ length: 41 }, (_, i) => ({
  id: i + 1,
  filename: `scan-${i + 1}-${'x'.repeat(40)}.sarif`,
  findings: 10 + i,
}));
const LIST = JSON.stringify({ total: 41, reports, truncated: false });

describe('compactToolResult', () => {
  it('leaves a result that fits as it is', () => {
    expect(compactToolResult(LIST, countTokens(LIST))).toBe(LIST);
  });

  it('cuts lists to their first rows, says how many it left out, and keeps every total', () => {
    const short = compactToolResult(LIST, 300);
    expect(countTokens(short)).toBeLessThanOrEqual(300);
    const parsed = JSON.parse(short) as {
      total: number;
      reports: typeof reports;
      reportsOmitted: number;
      truncated: boolean;
    };
    expect(parsed.total).toBe(41);
    expect(parsed.truncated).toBe(true);
    expect(parsed.reports.length + parsed.reportsOmitted).toBe(41);
    expect(parsed.reports[0]).toMatchObject({ id: 1, findings: 10 });
  });

  it('clips long texts, and gives its shortest form when nothing fits', () => {
    const detail = JSON.stringify({ id: 7, description: 'word '.repeat(2000), notes: [{ body: 'n' }] });
    const short = JSON.parse(compactToolResult(detail, 1)) as Record<string, unknown>;
    expect(short).toEqual({ id: 7, description: `${'word '.repeat(6)}…`, notes: [], notesOmitted: 1 });
  });
});

describe('fitToolResults', () => {
  const system = { role: 'system', content: 'You answer questions about reports.' };
  const turn = (q: string) => [
    { role: 'user', content: q },
    { role: 'assistant', content: `An answer to ${q} ${'words '.repeat(100)}` },
  ];
  const call = { role: 'assistant', content: null, tool_calls: [{ id: 'c1' }] };
  const input = (budget: number, history = [...turn('first'), ...turn('second')]) => ({
    prompt: [system, ...history, { role: 'user', content: 'List the reports.' }],
    loop: [call],
    results: [{ toolCallId: 'c1', content: LIST }],
    tools: [],
    budget,
  });

  it('changes nothing when the result leaves the reserve free', () => {
    const fitted = fitToolResults(input(20_000));
    expect(fitted).toMatchObject({ contents: [LIST], droppedTurns: 0, compacted: 0 });
  });

  it('drops old turns, oldest first, before it shortens a result', () => {
    const { prompt, loop } = input(0);
    const fixed = countMessagesTokens([...prompt.slice(0, 1), ...prompt.slice(3), ...loop]);
    const result = countMessageTokens({ role: 'tool', content: LIST, tool_call_id: 'c1' });
    // Without the first turn, the result takes exactly what is left after the reserve (a quarter of the
    // budget).
    const fitted = fitToolResults(input(Math.ceil(((fixed + result) * 4) / 3)));
    expect(fitted.prompt.map((m) => m.content)).toEqual([
      system.content,
      'second',
      expect.stringMatching(/^An answer to second/),
      'List the reports.',
    ]);
    expect(fitted).toMatchObject({ contents: [LIST], droppedTurns: 1, compacted: 0 });
  });

  it('shortens the result to its share once no history is left to drop', () => {
    const fitted = fitToolResults(input(1000, []));
    expect(fitted.compacted).toBe(1);
    const used = countMessagesTokens([
      ...fitted.prompt,
      call,
      { role: 'tool', content: fitted.contents[0], tool_call_id: 'c1' },
    ]);
    expect(used).toBeLessThanOrEqual(1000);
    expect(JSON.parse(fitted.contents[0])).toMatchObject({ total: 41 });
  });
});

describe('ollamaTruncate (the scripted server, as Ollama server/prompt.go chatPrompt)', () => {
  const sys = { role: 'system', content: 'system prompt' };
  const user = (n: number) => ({ role: 'user', content: `question ${n} ${'pad '.repeat(50)}` });
  const answer = { role: 'assistant', content: 'answer' };
  const call = { role: 'assistant', content: '', tool_calls: [{ id: 'x' }] };
  const result = { role: 'tool', content: 'r '.repeat(100), tool_call_id: 'x' };

  it('keeps everything that fits', () => {
    const msgs = [sys, user(1)];
    expect(ollamaTruncate(msgs, [], 10_000)).toMatchObject({ messages: msgs, dropped: 0 });
  });

  it('keeps the system prompt, drops the oldest messages and never orphans a tool result', () => {
    const msgs = [sys, user(1), call, result, user(2)];
    const size = countMessagesTokens([sys, result, user(2)]);
    const cut = ollamaTruncate(msgs, [], size);
    // Starting at the tool result would orphan it: the start moves back to its call, which is too long.
    expect(cut.messages).toEqual([sys, user(2)]);
    expect(ollamaTruncate(msgs, [], countMessagesTokens([sys, call, result, user(2)])).messages).toEqual([
      sys,
      call,
      result,
      user(2),
    ]);
  });

  it('always keeps the last message, even when it alone is over the window', () => {
    expect(ollamaTruncate([sys, user(1), answer, user(2)], [], 5).messages).toEqual([sys, user(2)]);
  });
});
