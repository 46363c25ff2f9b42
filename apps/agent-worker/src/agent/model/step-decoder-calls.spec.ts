/**
 * The step decoder (call formats, ids, held-back text, native calls, odd input) fed with the streams real servers send, replayed over HTTP by the scripted
 * server and read by the real `openai` client, and (for exhaustive splits) fed chunk objects.
 */
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import {
  contentChunks,
  feed,
  llama,
  ollama,
  replayThroughServer,
  vllm,
  vllmUsage,
} from '../testing/server-chunks';
import { StepDecoder } from './step-decoder';

const replay = replayThroughServer();

describe('StepDecoder: call formats the servers leave in the content', () => {
  it('llama.cpp serving gpt-oss without a harmony parser: analysis is reasoning, the commentary call runs, nothing shows', async () => {
    const raw =
      '<|channel|>analysis<|message|>Need to search.<|end|><|start|>assistant<|channel|>commentary to=functions.search_findings <|constrain|>json<|message|>{"text":"sql"}<|call|>';
    const d = await replay([
      ...contentChunks(llama, raw.slice(0, 40), raw.slice(40, 90), raw.slice(90, 150), raw.slice(150)),
      llama({}, 'stop'),
    ]);
    expect([...d.pushes.flat(), ...d.out]).toEqual([]);
    expect(d.step).toMatchObject({
      text: '',
      reasoning: 'Need to search.',
      toolCalls: [{ name: 'search_findings', arguments: '{"text":"sql"}' }],
    });

    const header = feed(
      contentChunks(
        llama,
        '<|start|>assistant',
        ' to=functions.list_all_reports',
        '<|channel|>commentary json<|message|>{}<|call|>',
      ),
    );
    expect([header.seen, header.step.toolCalls.map((c) => c.name)]).toEqual(['', ['list_all_reports']]);
    const cut = feed(contentChunks(llama, '<|channel|>final<|message|>There are 3.', '<|start|>assistant'));
    expect([cut.seen, cut.step.text]).toEqual(['There are 3.', 'There are 3.']);
  });

  it('Ollama llama3.1 writing <function=NAME>{json}</function> runs with its arguments, not an unfiltered {}', async () => {
    const d = await replay([
      ...contentChunks(
        ollama,
        'I will search. <function=search_',
        'findings>{"text": "sql", ',
        '"severity": "high"}</function>',
      ),
      ollama({}, 'stop'),
    ]);
    expect(d.seen).toBe('I will search.');
    expect(d.step.toolCalls.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([
      ['search_findings', { text: 'sql', severity: 'high' }],
    ]);
  });

  it('vLLM without a tool parser: calls with no or null arguments run as {} instead of showing', async () => {
    const d = await replay([
      ...contentChunks(
        vllm,
        '<tool_call>\n{"name": "get_corpus_overview"',
        '}\n</tool_call>\n<tool_call>{"name": "list_all_reports", "arguments": null}</tool_call>',
      ),
      vllm({ content: '' }, 'stop'),
    ]);
    expect(d.seen).toBe('');
    expect(d.step.toolCalls.map((c) => [c.name, c.arguments])).toEqual([
      ['get_corpus_overview', '{}'],
      ['list_all_reports', '{}'],
    ]);
  });

  it('a bare call followed by prose is held and run; none of it shows', async () => {
    const d = await replay([
      ...contentChunks(
        ollama,
        '{"name": "search_findings", ',
        '"arguments": {"text": "sql"}}',
        '\n\nI am searching',
        ' now.',
      ),
      ollama({}, 'stop'),
    ]);
    expect([...d.pushes.flat(), ...d.out]).toEqual([]);
    expect(d.step).toMatchObject({
      text: '',
      toolCalls: [{ name: 'search_findings', arguments: '{"text":"sql"}' }],
    });
  });

  it('a call after prose on the same line cuts the step back to the prose', async () => {
    const d = await replay([
      ...contentChunks(
        ollama,
        'Let me look that up: ',
        '{"name": "search_findings", "arguments": {"text": "sql"}}',
      ),
      ollama({}, 'stop'),
    ]);
    expect(d.out).toEqual([{ kind: 'reset', length: 'Let me look that up:'.length, reason: 'tool_call' }]);
    expect(d.seen).toBe('Let me look that up:');
    expect(d.step.toolCalls.map((c) => c.name)).toEqual(['search_findings']);
  });

  it('Llama <|python_tag|> and pythonic lists (llama3.2 on Ollama without a tool template) become calls', async () => {
    const tag = await replay([
      ...contentChunks(vllm, '<|python_', 'tag|>{"name": "search_findings", "parameters": {"text": "sql"}}'),
      vllm({ content: '' }, 'stop'),
    ]);
    expect([tag.seen, tag.step.toolCalls.map((c) => [c.name, c.arguments])]).toEqual([
      '',
      [['search_findings', '{"text":"sql"}']],
    ]);
    const py = await replay([
      ...contentChunks(ollama, '[search_findings(text="sql", ', 'severity="high")]'),
      ollama({}, 'stop'),
    ]);
    expect([...py.pushes.flat(), ...py.out]).toEqual([]);
    expect(py.step.toolCalls.map((c) => [c.name, c.arguments])).toEqual([
      ['search_findings', '{"text":"sql","severity":"high"}'],
    ]);
  });
});

describe('StepDecoder: tool-call ids', () => {
  const textCall = '<tool_call>{"name": "list_all_reports", "arguments": {}}</tool_call>';

  it('gives calls without a server id 9 random alphanumerics by default (Mistral templates accept only these), new each step', async () => {
    const ids: string[] = [];
    for (let step = 0; step < 2; step++) {
      const d = await replay([
        ...contentChunks(vllm, textCall),
        vllm({
          tool_calls: [
            { index: 1, type: 'function', function: { name: 'get_corpus_overview', arguments: '{}' } },
          ],
        }),
        vllm({ content: '' }, 'tool_calls'),
      ]);
      expect(d.step.toolCalls.map((c) => c.name)).toEqual(['get_corpus_overview', 'list_all_reports']);
      ids.push(...d.step.toolCalls.map((c) => c.id));
    }
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('takes ids from the given generator, and keeps the ids the server sent', () => {
    let n = 0;
    const decoder = new StepDecoder(() => `turnid${String(n++).padStart(3, '0')}`);
    decoder.push(vllm({ content: textCall }) as ChatCompletionChunk);
    decoder.push(
      vllm({
        tool_calls: [
          {
            index: 0,
            id: 'chatcmpl-tool-7c1',
            type: 'function',
            function: { name: 'finding_detail', arguments: '{"id": 3}' },
          },
        ],
      }) as ChatCompletionChunk,
    );
    expect(decoder.end().step.toolCalls.map((c) => [c.index, c.id, c.name])).toEqual([
      [0, 'chatcmpl-tool-7c1', 'finding_detail'],
      [1, 'turnid000', 'list_all_reports'],
    ]);
  });
});

describe('StepDecoder: holding back text', () => {
  it('holds a partial tag until the next characters decide, then shows plain text with < in it', () => {
    const d = feed(contentChunks(vllm, 'Use a <', 'b> tag if 3 <', ' 4, and <too', 'ls> for more.'));
    expect(d.pushes).toEqual([
      [{ kind: 'text', text: 'Use a' }],
      [{ kind: 'text', text: ' <b> tag if 3' }],
      [{ kind: 'text', text: ' < 4, and' }],
      [{ kind: 'text', text: ' <tools> for more.' }],
    ]);
    expect(d.out).toEqual([]);
  });

  it('shows a step that starts with [ or { once it is clearly not a call', () => {
    const d = feed(contentChunks(vllm, '[Cri', 'tical] 4 findings.'));
    expect(d.pushes).toEqual([[], [{ kind: 'text', text: '[Critical] 4 findings.' }]]);
    const json = feed(contentChunks(vllm, '{"total": ', '4}'));
    expect(json.pushes).toEqual([[], [{ kind: 'text', text: '{"total": 4}' }]]);
    expect(json.step.toolCalls).toEqual([]);
    // Data with a `name` is not a call: it shows.
    const named = feed(contentChunks(vllm, '{"name": "openssl", ', '"version": "3.0.2"}'));
    expect([named.seen, named.step.toolCalls]).toEqual(['{"name": "openssl", "version": "3.0.2"}', []]);
  });

  it('holds a whitespace-only start and trailing blanks, so no reset is needed to trim them', () => {
    const d = feed([
      ...contentChunks(vllm, '\n\n', 'Done. ', '\n'),
      vllm({
        tool_calls: [
          { index: 0, id: 'c', type: 'function', function: { name: 'list_all_reports', arguments: '{}' } },
        ],
      }),
    ]);
    expect(d.pushes).toEqual([[], [{ kind: 'text', text: 'Done.' }], [], []]);
    expect(d.step.text).toBe('Done.');
  });
});

describe('StepDecoder: native tool calls', () => {
  it('vLLM (hermes parser): id and name first, arguments split; finish_reason tool_calls', async () => {
    const d = await replay([
      vllm({ role: 'assistant', content: '' }),
      vllm({
        tool_calls: [
          { id: 'chatcmpl-tool-1a', type: 'function', index: 0, function: { name: 'search_findings' } },
        ],
      }),
      vllm({ tool_calls: [{ index: 0, function: { arguments: '{"severity": "' } }] }),
      vllm({ tool_calls: [{ index: 0, function: { arguments: 'high"}' } }] }),
      vllm({ content: '' }, 'tool_calls'),
      vllmUsage(900, 20),
    ]);
    expect(d.step).toEqual({
      text: '',
      reasoning: '',
      toolCalls: [
        { index: 0, id: 'chatcmpl-tool-1a', name: 'search_findings', arguments: '{"severity": "high"}' },
      ],
      finishReason: 'tool_calls',
      usage: { promptTokens: 900, completionTokens: 20 },
    });
  });

  it('a proxy giving both parallel calls index 0 yields two calls', async () => {
    const d = await replay([
      llama({
        tool_calls: [
          { index: 0, id: 'a', type: 'function', function: { name: 'count_findings_by', arguments: '' } },
        ],
      }),
      llama({ tool_calls: [{ index: 0, function: { arguments: '{"field":"severity"}' } }] }),
      llama({
        tool_calls: [
          { index: 0, id: 'b', type: 'function', function: { name: 'list_all_reports', arguments: '' } },
        ],
      }),
      llama({}, 'tool_calls'),
    ]);
    expect(d.step.toolCalls.map((c) => [c.id, c.name, c.arguments])).toEqual([
      ['a', 'count_findings_by', '{"field":"severity"}'],
      ['b', 'list_all_reports', '{}'],
    ]);
  });

  it('Ollama: whole calls in one chunk, with text before them', async () => {
    const d = await replay([
      ollama({ role: 'assistant', content: 'Let me check.' }),
      ollama({
        content: '',
        tool_calls: [
          {
            id: 'call_k2j',
            index: 0,
            type: 'function',
            function: { name: 'finding_detail', arguments: '{"id":4}' },
          },
        ],
      }),
      ollama({}, 'tool_calls'),
    ]);
    expect(d.step).toMatchObject({
      text: 'Let me check.',
      toolCalls: [{ id: 'call_k2j', name: 'finding_detail', arguments: '{"id":4}' }],
    });
  });

  it('a call both parsed natively and left in the content is returned once', () => {
    const d = feed([
      vllm({ content: '<tool_call>{"name": "list_all_reports", "arguments": {}}</tool_call>' }),
      vllm({
        tool_calls: [
          { index: 0, id: 'n1', type: 'function', function: { name: 'list_all_reports', arguments: '{}' } },
        ],
      }),
    ]);
    expect(d.step.toolCalls.map((c) => c.id)).toEqual(['n1']);
  });
});

describe('StepDecoder: odd input', () => {
  it('takes the last non-null finish_reason, and null when none came', () => {
    expect(feed([vllm({ content: 'a' }, 'length'), vllm({ content: '' }, null)]).step.finishReason).toBe(
      'length',
    );
    expect(feed([vllm({ content: 'a' })]).step.finishReason).toBeNull();
  });

  it('never throws on chunks without choices, null deltas or content, or fields of the wrong type', () => {
    const odd = [
      {},
      { choices: null },
      { choices: 'x' },
      { choices: [null, 3] },
      { choices: [{ index: 0, delta: null, finish_reason: null }] },
      vllm({ role: 'assistant' }),
      vllm({ content: null }),
      vllm({ content: '' }),
      vllm({ content: 7, reasoning_content: 5, tool_calls: 'x' }),
      vllm({
        tool_calls: [null, { function: null }, { index: 'z', function: { name: 9, arguments: null } }],
      }),
      { usage: { prompt_tokens: 'many' } },
      null,
      vllm({ content: [{ type: 'text', text: 'Hi.' }] }),
    ];
    const d = feed(odd);
    expect(d.step).toMatchObject({ text: 'Hi.', reasoning: '', finishReason: null });
    expect(d.step.usage).toBeUndefined();
    expect(new StepDecoder().end()).toEqual({
      out: [],
      step: { text: '', reasoning: '', toolCalls: [], finishReason: null },
    });
  });
});
