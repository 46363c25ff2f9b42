/**
 * The step decoder fed with the streams real servers send, replayed over HTTP by the scripted
 * server and read by the real `openai` client, and (for exhaustive splits) fed chunk objects.
 */
import OpenAI from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { ScriptedOpenAiServer } from '../testing/scripted-openai-server';
import { StepDecoder, type DecodedStep, type DecoderOutput } from './step-decoder';

let server: ScriptedOpenAiServer;
let client: OpenAI;
beforeAll(async () => {
  server = await ScriptedOpenAiServer.start();
  client = new OpenAI({ baseURL: server.baseUrl, apiKey: 'k', maxRetries: 0 });
});
afterAll(() => server.close());

type Delta = Record<string, unknown>;
const created = 1764615600;
/** vLLM's `ChatCompletionStreamResponse`: `logprobs` and `finish_reason` always present. */
const vllm = (delta: Delta, finish: string | null = null) => ({
  id: 'chatcmpl-9f2c',
  object: 'chat.completion.chunk',
  created,
  model: 'Qwen/Qwen3-8B',
  choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
});
const vllmUsage = (prompt: number, completion: number) => ({
  id: 'chatcmpl-9f2c',
  object: 'chat.completion.chunk',
  created,
  model: 'Qwen/Qwen3-8B',
  choices: [],
  usage: { prompt_tokens: prompt, total_tokens: prompt + completion, completion_tokens: completion },
});
/** llama-server: `choices` first, a `system_fingerprint` build tag, `content: null` in the role chunk. */
const llama = (delta: Delta, finish: string | null = null) => ({
  choices: [{ finish_reason: finish, index: 0, delta }],
  created,
  id: 'chatcmpl-X6urH4f6JOot',
  model: 'gpt-oss-20b',
  system_fingerprint: 'b6097-9515c613',
  object: 'chat.completion.chunk',
});
const llamaUsage = (prompt: number, completion: number) => ({
  ...llama({}),
  choices: [],
  usage: { completion_tokens: completion, prompt_tokens: prompt, total_tokens: prompt + completion },
  timings: { prompt_n: prompt, prompt_ms: 203.4, predicted_n: completion, predicted_ms: 933.6 },
});
/** Ollama's OpenAI layer: `fp_ollama`, `finish_reason` null until its own empty-delta chunk. */
const ollama = (delta: Delta, finish: string | null = null) => ({
  id: 'chatcmpl-123',
  object: 'chat.completion.chunk',
  created,
  model: 'qwen3:8b',
  system_fingerprint: 'fp_ollama',
  choices: [{ index: 0, delta, finish_reason: finish }],
});
const contentChunks = (make: (d: Delta) => object, ...pieces: string[]) => pieces.map((content) => make({ content }));

interface Decoded {
  pushes: DecoderOutput[][];
  out: DecoderOutput[];
  step: DecodedStep;
  /** The text the operator sees after applying every output in order. */
  seen: string;
}

/** Streams `chunks` over HTTP as the server would and decodes what the real client yields. */
async function replay(chunks: object[]): Promise<Decoded> {
  server.enqueue({ kind: 'stream', chunks: chunks.map((c) => ({ raw: JSON.stringify(c) })) });
  const stream = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'q' }], stream: true });
  const decoder = new StepDecoder();
  const pushes: DecoderOutput[][] = [];
  for await (const chunk of stream) pushes.push(decoder.push(chunk));
  return finish(decoder, pushes);
}

/** Decodes chunk objects directly (for tests that try hundreds of splits); ids are `id0`, `id1`, … */
function feed(chunks: unknown[]): Decoded {
  let n = 0;
  const decoder = new StepDecoder({ newId: () => `id${n++}` });
  return finish(decoder, chunks.map((c) => decoder.push(c as ChatCompletionChunk)));
}

function finish(decoder: StepDecoder, pushes: DecoderOutput[][]): Decoded {
  const { out, step } = decoder.end();
  let seen = '';
  for (const o of [...pushes.flat(), ...out]) seen = o.kind === 'text' ? seen + o.text : seen.slice(0, o.length);
  return { pushes, out, step, seen };
}

const shownAfter = (d: Decoded, i: number) => d.pushes.slice(0, i + 1).flat();
const resets = (d: Decoded) => [...d.pushes.flat(), ...d.out].filter((o) => o.kind === 'reset');

describe('StepDecoder: reasoning', () => {
  it('vLLM with a reasoning parser: reasoning_content never shows; usage from the final chunk with empty choices', async () => {
    const d = await replay([
      vllm({ role: 'assistant', content: '' }),
      vllm({ reasoning_content: 'The user asks for ' }),
      vllm({ reasoning_content: 'a count.' }),
      vllm({ content: '\n\nThere are ' }),
      vllm({ content: '42 findings.' }),
      vllm({ content: '' }, 'stop'),
      vllmUsage(812, 57),
    ]);
    expect(d.pushes.slice(0, 3).flat()).toEqual([]);
    expect(d.pushes[3]).toEqual([{ kind: 'text', text: 'There are' }]);
    expect(d.seen).toBe('There are 42 findings.');
    expect(d.step).toEqual({
      text: 'There are 42 findings.',
      reasoning: 'The user asks for a count.',
      toolCalls: [],
      finishReason: 'stop',
      usage: { promptTokens: 812, completionTokens: 57 },
    });
  });

  it('Ollama: delta.reasoning goes to reasoning; the finish arrives in its own empty-delta chunk', async () => {
    const d = await replay([
      ollama({ role: 'assistant', content: '', reasoning: 'Count by severity' }),
      ollama({ content: '', reasoning: ' first.' }),
      ollama({ content: 'Five critical.' }),
      ollama({}, 'stop'),
    ]);
    expect(d.step.reasoning).toBe('Count by severity first.');
    expect(d.step.text).toBe('Five critical.');
    expect(d.step.finishReason).toBe('stop');
    expect(d.step.usage).toBeUndefined();
  });

  it('llama.cpp without a reasoning format: <think> in content, tags split across chunks, never shown', async () => {
    const d = await replay([
      llama({ role: 'assistant', content: null }),
      ...contentChunks(llama, '<thi', 'nk>\nCount the ', 'high ones.</th', 'ink>\n\nThere are 7 high', ' findings.'),
      llama({}, 'stop'),
      llamaUsage(300, 40),
    ]);
    expect(d.pushes.flat().filter((o) => o.kind === 'text').map((o) => (o as { text: string }).text)).toEqual(['There are 7 high', ' findings.']);
    expect(resets(d)).toEqual([]);
    expect(d.step).toMatchObject({ text: 'There are 7 high findings.', reasoning: 'Count the high ones.', usage: { promptTokens: 300, completionTokens: 40 } });
  });

  it('decodes the same whichever characters the chunks split at', () => {
    const samples = [
      '<think>plan</think>Answer: 3 < 4 and <b>bold</b>.',
      'Thinking it over.\n</think>\n\nThere are 3.',
      'Let me check.\n<tool_call>\n{"name": "a", "arguments": {"x": [1, "]"]}}\n</tool_call>',
      'I will look.\n{"name": "b", "arguments": {}}',
      'See:\n```json\n{"k": "`"}\n```\nDone [TOOL] <tool> `x`.',
      '<think>x</think>[TOOL_CALLS]c[ARGS]{"y": 2}',
      '<|channel|>analysis<|message|>plan<|end|><|start|>assistant<|channel|>final<|message|>Yes.',
      'Let me look that up: {"name": "b", "arguments": {"x": "}"}}',
      '{"name": "c"}\n\nSearching now.',
      '<|channel|>analysis<|message|>plan<|end|><|start|>assistant<|channel|>commentary to=functions.d <|constrain|>json<|message|>{"q":1}<|call|>',
      '<|start|>assistant to=functions.e<|channel|>commentary json<|message|>{}<|call|>',
      '[f(x="a)"), g()]',
      'I will. <function=g>{"k": 2}</function>',
      '<|python_tag|>{"name": "h", "parameters": {}}',
    ];
    const mismatches: string[] = [];
    for (const content of samples) {
      const whole = feed(contentChunks(vllm, content));
      expect(whole.seen).toBe(whole.step.text);
      for (let i = 1; i < content.length; i++) {
        for (let j = i + 1; j < Math.min(content.length, i + 10); j++) {
          const d = feed(contentChunks(vllm, content.slice(0, i), content.slice(i, j), content.slice(j)));
          if (d.seen !== d.step.text || JSON.stringify(d.step) !== JSON.stringify(whole.step)) mismatches.push(`${i},${j}: ${content}`);
        }
      }
    }
    expect(mismatches).toEqual([]);
    expect(feed(contentChunks(vllm, samples[0])).step).toMatchObject({ text: 'Answer: 3 < 4 and <b>bold</b>.', reasoning: 'plan' });
  });

  it('DeepSeek-R1 distill on Ollama without thinking support: a lone </think> resets what was shown and moves it to reasoning', async () => {
    const d = await replay([
      ...contentChunks(ollama, 'Okay, the user wants ', 'the critical count.\n</thi', 'nk>\n\nThere are ', '3 critical findings.'),
      ollama({}, 'stop'),
    ]);
    expect(shownAfter(d, 1)).toEqual([
      { kind: 'text', text: 'Okay, the user wants' },
      { kind: 'text', text: ' the critical count.' },
    ]);
    expect(d.pushes[2]).toEqual([
      { kind: 'reset', length: 0, reason: 'reasoning' },
      { kind: 'text', text: 'There are' },
    ]);
    expect(d.seen).toBe('There are 3 critical findings.');
    expect(d.step).toMatchObject({ text: 'There are 3 critical findings.', reasoning: 'Okay, the user wants the critical count.' });
  });

  it('llama.cpp serving gpt-oss with its channel markers left in the content: analysis is reasoning, final the answer', async () => {
    const d = await replay([
      llama({ role: 'assistant', content: null }),
      ...contentChunks(llama, '<|chan', 'nel|>analysis<|message|>User wants the total. Call nothing.', '<|start|>assistant<|chan', 'nel|>final<|message|>There are 184 findings.'),
      llama({}, 'stop'),
    ]);
    expect(d.pushes.flat()).toEqual([{ kind: 'text', text: 'There are 184 findings.' }]);
    expect(d.step).toMatchObject({ text: 'There are 184 findings.', reasoning: 'User wants the total. Call nothing.' });
  });

  it('vLLM sending the same text as reasoning_content and reasoning keeps it once, then joins <think> blocks', () => {
    const d = feed([vllm({ reasoning_content: 'a', reasoning: 'a' }), vllm({ content: '<think>b</think>Done.' })]);
    expect(d.step.reasoning).toBe('a\n\nb');
  });
});

describe('StepDecoder: tool calls written as text', () => {
  it('vLLM without --enable-auto-tool-choice, Hermes template: "Let me check." shows, the <tool_call> never does', async () => {
    const call = '<tool_call>\n{"name": "search_findings", "arguments": {"severity": "high", "text": "SQL"}}\n</tool_call>';
    const d = await replay([vllm({ role: 'assistant', content: '' }), ...contentChunks(vllm, 'Let me check.\n', call.slice(0, 5), call.slice(5, 40), call.slice(40)), vllm({ content: '' }, 'stop')]);
    expect(d.seen).toBe('Let me check.');
    expect(resets(d)).toEqual([]);
    expect(d.step).toMatchObject({
      text: 'Let me check.',
      toolCalls: [{ index: 0, id: expect.stringMatching(/^[A-Za-z0-9]{9}$/), name: 'search_findings', arguments: '{"severity":"high","text":"SQL"}' }],
      finishReason: 'stop',
    });
  });

  it('llama.cpp cut at max_tokens inside an unclosed <tool_call>: the call is still read, nothing shown', async () => {
    const d = await replay([...contentChunks(llama, '<tool_call>\n{"name": "finding_detail", ', '"arguments": {"id": 12}}'), llama({}, 'length')]);
    expect(d.seen).toBe('');
    expect(d.step.toolCalls.map((c) => [c.name, c.arguments])).toEqual([['finding_detail', '{"id":12}']]);
    expect(d.step.finishReason).toBe('length');
  });

  it('Ollama, llama3.2 without a tool template: a bare JSON call with "parameters" is held, then read as a call', async () => {
    const d = await replay([...contentChunks(ollama, '{"name": "count_findings_by", ', '"parameters": {"field": "severity"}}'), ollama({}, 'stop')]);
    expect(d.pushes.flat()).toEqual([]);
    expect(d.out).toEqual([]);
    expect(d.step).toMatchObject({ text: '', toolCalls: [{ name: 'count_findings_by', arguments: '{"field":"severity"}' }] });
  });

  it('a JSON list of calls and a ```json fence holding a call become calls; a fence that is not one shows', async () => {
    const list = await replay(contentChunks(vllm, '[{"name": "list_all_reports", "arguments": {}}, ', '{"name": "get_corpus_overview", "arguments": {}}]'));
    expect(list.step.toolCalls.map((c) => c.name)).toEqual(['list_all_reports', 'get_corpus_overview']);
    expect(list.seen).toBe('');

    const fenced = await replay(contentChunks(ollama, 'Searching.\n``', '`json\n{"name": "search_findings", "arguments": {"text": "xss"}}\n`', '``'));
    expect([fenced.seen, fenced.step.toolCalls.map((c) => c.arguments)]).toEqual(['Searching.', ['{"text":"xss"}']]);

    const example = 'A SARIF result:\n```json\n{"ruleId": "G101", "level": "error"}\n```\nThat rule flags secrets.';
    const shown = await replay(contentChunks(ollama, example.slice(0, 20), example.slice(20, 50), example.slice(50)));
    expect(shown.pushes[1]).toEqual([]); // inside the open fence
    expect(shown.seen).toBe(example);
    expect(shown.step.toolCalls).toEqual([]);
  });

  it('vLLM serving Qwen3-Coder without its parser: XML parameters become typed arguments', async () => {
    const xml = '<tool_call>\n<function=search_findings>\n<parameter=severity>\ncritical\n</parameter>\n<parameter=limit>\n5\n</parameter>\n</function>\n</tool_call>';
    const d = await replay(contentChunks(vllm, 'Checking.\n\n', xml.slice(0, 17), xml.slice(17, 60), xml.slice(60)));
    expect(d.seen).toBe('Checking.');
    expect(JSON.parse(d.step.toolCalls[0].arguments)).toEqual({ severity: 'critical', limit: 5 });
  });

  it('Mistral via llama.cpp without a tool parser: [TOOL_CALLS]name[ARGS]{…} is held and read', async () => {
    const d = await replay(contentChunks(llama, '[TOOL', '_CALLS]count_findings_by[ARGS]{"field": ', '"scanner"}'));
    expect(d.pushes.flat()).toEqual([]);
    expect(d.step.toolCalls.map((c) => [c.name, c.arguments])).toEqual([['count_findings_by', '{"field":"scanner"}']]);
  });

  it('a call written after shown prose (recognised only at the end) resets the step back to the prose', async () => {
    const d = await replay([...contentChunks(ollama, 'I will look it up.\n', '{"name": "finding_detail", "arguments": {"id": 9}}'), ollama({}, 'stop')]);
    expect(shownAfter(d, 1).map((o) => (o.kind === 'text' ? o.text : ''))).toEqual(['I will look it up.', '\n{"name": "finding_detail", "arguments": {"id": 9}}']);
    expect(d.out).toEqual([{ kind: 'reset', length: 'I will look it up.'.length, reason: 'tool_call' }]);
    expect(d.step).toMatchObject({ text: 'I will look it up.', toolCalls: [{ name: 'finding_detail', arguments: '{"id":9}' }] });
  });
});

describe('StepDecoder: call formats the servers leave in the content', () => {
  it('llama.cpp serving gpt-oss without a harmony parser: analysis is reasoning, the commentary call runs, nothing shows', async () => {
    const raw =
      '<|channel|>analysis<|message|>Need to search.<|end|><|start|>assistant<|channel|>commentary to=functions.search_findings <|constrain|>json<|message|>{"text":"sql"}<|call|>';
    const d = await replay([...contentChunks(llama, raw.slice(0, 40), raw.slice(40, 90), raw.slice(90, 150), raw.slice(150)), llama({}, 'stop')]);
    expect([...d.pushes.flat(), ...d.out]).toEqual([]);
    expect(d.step).toMatchObject({ text: '', reasoning: 'Need to search.', toolCalls: [{ name: 'search_findings', arguments: '{"text":"sql"}' }] });

    const header = feed(contentChunks(llama, '<|start|>assistant', ' to=functions.list_all_reports', '<|channel|>commentary json<|message|>{}<|call|>'));
    expect([header.seen, header.step.toolCalls.map((c) => c.name)]).toEqual(['', ['list_all_reports']]);
    const cut = feed(contentChunks(llama, '<|channel|>final<|message|>There are 3.', '<|start|>assistant'));
    expect([cut.seen, cut.step.text]).toEqual(['There are 3.', 'There are 3.']);
  });

  it('Ollama llama3.1 writing <function=NAME>{json}</function> runs with its arguments, not an unfiltered {}', async () => {
    const d = await replay([...contentChunks(ollama, 'I will search. <function=search_', 'findings>{"text": "sql", ', '"severity": "high"}</function>'), ollama({}, 'stop')]);
    expect(d.seen).toBe('I will search.');
    expect(d.step.toolCalls.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([['search_findings', { text: 'sql', severity: 'high' }]]);
  });

  it('vLLM without a tool parser: calls with no or null arguments run as {} instead of showing', async () => {
    const d = await replay([...contentChunks(vllm, '<tool_call>\n{"name": "get_corpus_overview"', '}\n</tool_call>\n<tool_call>{"name": "list_all_reports", "arguments": null}</tool_call>'), vllm({ content: '' }, 'stop')]);
    expect(d.seen).toBe('');
    expect(d.step.toolCalls.map((c) => [c.name, c.arguments])).toEqual([
      ['get_corpus_overview', '{}'],
      ['list_all_reports', '{}'],
    ]);
  });

  it('a bare call followed by prose is held and run; none of it shows', async () => {
    const d = await replay([...contentChunks(ollama, '{"name": "search_findings", ', '"arguments": {"text": "sql"}}', '\n\nI am searching', ' now.'), ollama({}, 'stop')]);
    expect([...d.pushes.flat(), ...d.out]).toEqual([]);
    expect(d.step).toMatchObject({ text: '', toolCalls: [{ name: 'search_findings', arguments: '{"text":"sql"}' }] });
  });

  it('a call after prose on the same line cuts the step back to the prose', async () => {
    const d = await replay([...contentChunks(ollama, 'Let me look that up: ', '{"name": "search_findings", "arguments": {"text": "sql"}}'), ollama({}, 'stop')]);
    expect(d.out).toEqual([{ kind: 'reset', length: 'Let me look that up:'.length, reason: 'tool_call' }]);
    expect(d.seen).toBe('Let me look that up:');
    expect(d.step.toolCalls.map((c) => c.name)).toEqual(['search_findings']);
  });

  it('Llama <|python_tag|> and pythonic lists (llama3.2 on Ollama without a tool template) become calls', async () => {
    const tag = await replay([...contentChunks(vllm, '<|python_', 'tag|>{"name": "search_findings", "parameters": {"text": "sql"}}'), vllm({ content: '' }, 'stop')]);
    expect([tag.seen, tag.step.toolCalls.map((c) => [c.name, c.arguments])]).toEqual(['', [['search_findings', '{"text":"sql"}']]]);
    const py = await replay([...contentChunks(ollama, '[search_findings(text="sql", ', 'severity="high")]'), ollama({}, 'stop')]);
    expect([...py.pushes.flat(), ...py.out]).toEqual([]);
    expect(py.step.toolCalls.map((c) => [c.name, c.arguments])).toEqual([['search_findings', '{"text":"sql","severity":"high"}']]);
  });
});

describe('StepDecoder: tool-call ids', () => {
  const textCall = '<tool_call>{"name": "list_all_reports", "arguments": {}}</tool_call>';

  it('gives calls without a server id 9 random alphanumerics by default (Mistral templates accept only these), new each step', async () => {
    const ids: string[] = [];
    for (let step = 0; step < 2; step++) {
      const d = await replay([
        ...contentChunks(vllm, textCall),
        vllm({ tool_calls: [{ index: 1, type: 'function', function: { name: 'get_corpus_overview', arguments: '{}' } }] }),
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
    const decoder = new StepDecoder({ newId: () => `turnid${String(n++).padStart(3, '0')}` });
    decoder.push(vllm({ content: textCall }) as ChatCompletionChunk);
    decoder.push(vllm({ tool_calls: [{ index: 0, id: 'chatcmpl-tool-7c1', type: 'function', function: { name: 'finding_detail', arguments: '{"id": 3}' } }] }) as ChatCompletionChunk);
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
    const d = feed([...contentChunks(vllm, '\n\n', 'Done. ', '\n'), vllm({ tool_calls: [{ index: 0, id: 'c', type: 'function', function: { name: 'list_all_reports', arguments: '{}' } }] })]);
    expect(d.pushes).toEqual([[], [{ kind: 'text', text: 'Done.' }], [], []]);
    expect(d.step.text).toBe('Done.');
  });
});

describe('StepDecoder: native tool calls', () => {
  it('vLLM (hermes parser): id and name first, arguments split; finish_reason tool_calls', async () => {
    const d = await replay([
      vllm({ role: 'assistant', content: '' }),
      vllm({ tool_calls: [{ id: 'chatcmpl-tool-1a', type: 'function', index: 0, function: { name: 'search_findings' } }] }),
      vllm({ tool_calls: [{ index: 0, function: { arguments: '{"severity": "' } }] }),
      vllm({ tool_calls: [{ index: 0, function: { arguments: 'high"}' } }] }),
      vllm({ content: '' }, 'tool_calls'),
      vllmUsage(900, 20),
    ]);
    expect(d.step).toEqual({
      text: '',
      reasoning: '',
      toolCalls: [{ index: 0, id: 'chatcmpl-tool-1a', name: 'search_findings', arguments: '{"severity": "high"}' }],
      finishReason: 'tool_calls',
      usage: { promptTokens: 900, completionTokens: 20 },
    });
  });

  it('a proxy giving both parallel calls index 0 yields two calls', async () => {
    const d = await replay([
      llama({ tool_calls: [{ index: 0, id: 'a', type: 'function', function: { name: 'count_findings_by', arguments: '' } }] }),
      llama({ tool_calls: [{ index: 0, function: { arguments: '{"field":"severity"}' } }] }),
      llama({ tool_calls: [{ index: 0, id: 'b', type: 'function', function: { name: 'list_all_reports', arguments: '' } }] }),
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
      ollama({ content: '', tool_calls: [{ id: 'call_k2j', index: 0, type: 'function', function: { name: 'finding_detail', arguments: '{"id":4}' } }] }),
      ollama({}, 'tool_calls'),
    ]);
    expect(d.step).toMatchObject({ text: 'Let me check.', toolCalls: [{ id: 'call_k2j', name: 'finding_detail', arguments: '{"id":4}' }] });
  });

  it('a call both parsed natively and left in the content is returned once', () => {
    const d = feed([
      vllm({ content: '<tool_call>{"name": "list_all_reports", "arguments": {}}</tool_call>' }),
      vllm({ tool_calls: [{ index: 0, id: 'n1', type: 'function', function: { name: 'list_all_reports', arguments: '{}' } }] }),
    ]);
    expect(d.step.toolCalls.map((c) => c.id)).toEqual(['n1']);
  });
});

describe('StepDecoder: odd input', () => {
  it('takes the last non-null finish_reason, and null when none came', () => {
    expect(feed([vllm({ content: 'a' }, 'length'), vllm({ content: '' }, null)]).step.finishReason).toBe('length');
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
      vllm({ tool_calls: [null, { function: null }, { index: 'z', function: { name: 9, arguments: null } }] }),
      { usage: { prompt_tokens: 'many' } },
      null,
      vllm({ content: [{ type: 'text', text: 'Hi.' }] }),
    ];
    const d = feed(odd);
    expect(d.step).toMatchObject({ text: 'Hi.', reasoning: '', finishReason: null });
    expect(d.step.usage).toBeUndefined();
    expect(new StepDecoder().end()).toEqual({ out: [], step: { text: '', reasoning: '', toolCalls: [], finishReason: null } });
  });
});
