/**
 * The step decoder fed with the streams real servers send, replayed over HTTP by the scripted
 * server and read by the real `openai` client, and (for exhaustive splits) fed chunk objects.
 */
import {
  contentChunks,
  feed,
  llama,
  llamaUsage,
  ollama,
  replayThroughServer,
  resets,
  shownAfter,
  vllm,
  vllmUsage,
} from '../testing/server-chunks';

const replay = replayThroughServer();

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
      ...contentChunks(
        llama,
        '<thi',
        'nk>\nCount the ',
        'high ones.</th',
        'ink>\n\nThere are 7 high',
        ' findings.',
      ),
      llama({}, 'stop'),
      llamaUsage(300, 40),
    ]);
    expect(
      d.pushes
        .flat()
        .filter((o) => o.kind === 'text')
        .map((o) => (o as { text: string }).text),
    ).toEqual(['There are 7 high', ' findings.']);
    expect(resets(d)).toEqual([]);
    expect(d.step).toMatchObject({
      text: 'There are 7 high findings.',
      reasoning: 'Count the high ones.',
      usage: { promptTokens: 300, completionTokens: 40 },
    });
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
          if (d.seen !== d.step.text || JSON.stringify(d.step) !== JSON.stringify(whole.step))
            mismatches.push(`${i},${j}: ${content}`);
        }
      }
    }
    expect(mismatches).toEqual([]);
    expect(feed(contentChunks(vllm, samples[0])).step).toMatchObject({
      text: 'Answer: 3 < 4 and <b>bold</b>.',
      reasoning: 'plan',
    });
  });

  it('DeepSeek-R1 distill on Ollama without thinking support: a lone </think> resets what was shown and moves it to reasoning', async () => {
    const d = await replay([
      ...contentChunks(
        ollama,
        'Okay, the user wants ',
        'the critical count.\n</thi',
        'nk>\n\nThere are ',
        '3 critical findings.',
      ),
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
    expect(d.step).toMatchObject({
      text: 'There are 3 critical findings.',
      reasoning: 'Okay, the user wants the critical count.',
    });
  });

  it('llama.cpp serving gpt-oss with its channel markers left in the content: analysis is reasoning, final the answer', async () => {
    const d = await replay([
      llama({ role: 'assistant', content: null }),
      ...contentChunks(
        llama,
        '<|chan',
        'nel|>analysis<|message|>User wants the total. Call nothing.',
        '<|start|>assistant<|chan',
        'nel|>final<|message|>There are 184 findings.',
      ),
      llama({}, 'stop'),
    ]);
    expect(d.pushes.flat()).toEqual([{ kind: 'text', text: 'There are 184 findings.' }]);
    expect(d.step).toMatchObject({
      text: 'There are 184 findings.',
      reasoning: 'User wants the total. Call nothing.',
    });
  });

  it('vLLM sending the same text as reasoning_content and reasoning keeps it once, then joins <think> blocks', () => {
    const d = feed([
      vllm({ reasoning_content: 'a', reasoning: 'a' }),
      vllm({ content: '<think>b</think>Done.' }),
    ]);
    expect(d.step.reasoning).toBe('a\n\nb');
  });
});

describe('StepDecoder: tool calls written as text', () => {
  it('vLLM without --enable-auto-tool-choice, Hermes template: "Let me check." shows, the <tool_call> never does', async () => {
    const call =
      '<tool_call>\n{"name": "search_findings", "arguments": {"severity": "high", "text": "SQL"}}\n</tool_call>';
    const d = await replay([
      vllm({ role: 'assistant', content: '' }),
      ...contentChunks(vllm, 'Let me check.\n', call.slice(0, 5), call.slice(5, 40), call.slice(40)),
      vllm({ content: '' }, 'stop'),
    ]);
    expect(d.seen).toBe('Let me check.');
    expect(resets(d)).toEqual([]);
    expect(d.step).toMatchObject({
      text: 'Let me check.',
      toolCalls: [
        {
          index: 0,
          id: expect.stringMatching(/^[A-Za-z0-9]{9}$/),
          name: 'search_findings',
          arguments: '{"severity":"high","text":"SQL"}',
        },
      ],
      finishReason: 'stop',
    });
  });

  it('llama.cpp cut at max_tokens inside an unclosed <tool_call>: the call is still read, nothing shown', async () => {
    const d = await replay([
      ...contentChunks(llama, '<tool_call>\n{"name": "finding_detail", ', '"arguments": {"id": 12}}'),
      llama({}, 'length'),
    ]);
    expect(d.seen).toBe('');
    expect(d.step.toolCalls.map((c) => [c.name, c.arguments])).toEqual([['finding_detail', '{"id":12}']]);
    expect(d.step.finishReason).toBe('length');
  });

  it('Ollama, llama3.2 without a tool template: a bare JSON call with "parameters" is held, then read as a call', async () => {
    const d = await replay([
      ...contentChunks(ollama, '{"name": "count_findings_by", ', '"parameters": {"field": "severity"}}'),
      ollama({}, 'stop'),
    ]);
    expect(d.pushes.flat()).toEqual([]);
    expect(d.out).toEqual([]);
    expect(d.step).toMatchObject({
      text: '',
      toolCalls: [{ name: 'count_findings_by', arguments: '{"field":"severity"}' }],
    });
  });

  it('a JSON list of calls and a ```json fence holding a call become calls; a fence that is not one shows', async () => {
    const list = await replay(
      contentChunks(
        vllm,
        '[{"name": "list_all_reports", "arguments": {}}, ',
        '{"name": "get_corpus_overview", "arguments": {}}]',
      ),
    );
    expect(list.step.toolCalls.map((c) => c.name)).toEqual(['list_all_reports', 'get_corpus_overview']);
    expect(list.seen).toBe('');

    const fenced = await replay(
      contentChunks(
        ollama,
        'Searching.\n``',
        '`json\n{"name": "search_findings", "arguments": {"text": "xss"}}\n`',
        '``',
      ),
    );
    expect([fenced.seen, fenced.step.toolCalls.map((c) => c.arguments)]).toEqual([
      'Searching.',
      ['{"text":"xss"}'],
    ]);

    const example =
      'A SARIF result:\n```json\n{"ruleId": "G101", "level": "error"}\n```\nThat rule flags secrets.';
    const shown = await replay(
      contentChunks(ollama, example.slice(0, 20), example.slice(20, 50), example.slice(50)),
    );
    expect(shown.pushes[1]).toEqual([]); // inside the open fence
    expect(shown.seen).toBe(example);
    expect(shown.step.toolCalls).toEqual([]);
  });

  it('vLLM serving Qwen3-Coder without its parser: XML parameters become typed arguments', async () => {
    const xml =
      '<tool_call>\n<function=search_findings>\n<parameter=severity>\ncritical\n</parameter>\n<parameter=limit>\n5\n</parameter>\n</function>\n</tool_call>';
    const d = await replay(
      contentChunks(vllm, 'Checking.\n\n', xml.slice(0, 17), xml.slice(17, 60), xml.slice(60)),
    );
    expect(d.seen).toBe('Checking.');
    expect(JSON.parse(d.step.toolCalls[0].arguments)).toEqual({ severity: 'critical', limit: 5 });
  });

  it('Mistral via llama.cpp without a tool parser: [TOOL_CALLS]name[ARGS]{…} is held and read', async () => {
    const d = await replay(
      contentChunks(llama, '[TOOL', '_CALLS]count_findings_by[ARGS]{"field": ', '"scanner"}'),
    );
    expect(d.pushes.flat()).toEqual([]);
    expect(d.step.toolCalls.map((c) => [c.name, c.arguments])).toEqual([
      ['count_findings_by', '{"field":"scanner"}'],
    ]);
  });

  it('a call written after shown prose (recognised only at the end) resets the step back to the prose', async () => {
    const d = await replay([
      ...contentChunks(ollama, 'I will look it up.\n', '{"name": "finding_detail", "arguments": {"id": 9}}'),
      ollama({}, 'stop'),
    ]);
    expect(shownAfter(d, 1).map((o) => (o.kind === 'text' ? o.text : ''))).toEqual([
      'I will look it up.',
      '\n{"name": "finding_detail", "arguments": {"id": 9}}',
    ]);
    expect(d.out).toEqual([{ kind: 'reset', length: 'I will look it up.'.length, reason: 'tool_call' }]);
    expect(d.step).toMatchObject({
      text: 'I will look it up.',
      toolCalls: [{ name: 'finding_detail', arguments: '{"id":9}' }],
    });
  });
});
