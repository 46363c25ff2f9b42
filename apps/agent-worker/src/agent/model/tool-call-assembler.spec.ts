import { ToolCallAssembler } from './tool-call-assembler';

describe('ToolCallAssembler', () => {
  it('joins argument fragments split anywhere, even inside strings and escapes', () => {
    const a = new ToolCallAssembler();
    const json = JSON.stringify({ text: 'say "hi" \\ SQL injection', severity: 'high' });
    a.add([
      { index: 0, id: 'call_1', type: 'function', function: { name: 'search_findings', arguments: '' } },
    ]);
    for (let i = 0; i < json.length; i += 3)
      a.add([{ index: 0, function: { arguments: json.slice(i, i + 3) } }]);
    expect(a.calls()).toEqual([{ index: 0, id: 'call_1', name: 'search_findings', arguments: json }]);
    expect(JSON.parse(a.calls()[0].arguments)).toEqual({
      text: 'say "hi" \\ SQL injection',
      severity: 'high',
    });
  });

  it('keeps interleaved calls apart by index and orders them', () => {
    const a = new ToolCallAssembler();
    a.add([{ index: 1, id: 'b', function: { name: 'finding_detail', arguments: '{"id"' } }]);
    a.add([{ index: 0, id: 'a', function: { name: 'list_all_reports', arguments: '{}' } }]);
    a.add([{ index: 1, function: { arguments: ': 7}' } }]);
    expect(a.calls().map((c) => [c.id, c.name, c.arguments])).toEqual([
      ['a', 'list_all_reports', '{}'],
      ['b', 'finding_detail', '{"id": 7}'],
    ]);
  });

  it('handles servers that omit the index and the id (the id stays empty for the decoder to fill)', () => {
    const a = new ToolCallAssembler();
    a.add([{ function: { name: 'search_findings', arguments: '{"te' } }]);
    a.add([{ function: { arguments: 'xt":"x"}' } }]);
    expect(a.calls()).toEqual([{ index: 0, id: '', name: 'search_findings', arguments: '{"text":"x"}' }]);
  });

  it('does not double a name that is repeated in later fragments', () => {
    const a = new ToolCallAssembler();
    a.add([{ index: 0, id: 'x', function: { name: 'search_findings', arguments: '{' } }]);
    a.add([{ index: 0, function: { name: 'search_findings', arguments: '}' } }]);
    expect(a.calls()[0].name).toBe('search_findings');
  });
});

describe('ToolCallAssembler with servers that do not keep calls apart by index', () => {
  it('splits parallel calls that all carry index 0 at their ids (some vLLM tool parsers, LiteLLM)', () => {
    const a = new ToolCallAssembler();
    a.add([{ index: 0, id: 'chatcmpl-tool-a', type: 'function', function: { name: 'count_findings_by' } }]);
    a.add([{ index: 0, function: { arguments: '{"field": ' } }]);
    a.add([{ index: 0, function: { arguments: '"severity"}' } }]);
    a.add([{ index: 0, id: 'chatcmpl-tool-b', type: 'function', function: { name: 'list_all_reports' } }]);
    a.add([{ index: 0, function: { arguments: '{}' } }]);
    expect(a.calls()).toEqual([
      { index: 0, id: 'chatcmpl-tool-a', name: 'count_findings_by', arguments: '{"field": "severity"}' },
      { index: 1, id: 'chatcmpl-tool-b', name: 'list_all_reports', arguments: '{}' },
    ]);
  });

  it('splits calls without ids at a new name once the current arguments are complete JSON', () => {
    const a = new ToolCallAssembler();
    a.add([{ function: { name: 'search_findings', arguments: '{"severity": "high"}' } }]);
    a.add([{ function: { name: 'search_findings', arguments: '{"severity": "critical"}' } }]);
    a.add([{ index: 3, function: { name: 'finding_detail', arguments: '{"id": 7}' } }]);
    a.add([{ index: 3, function: { name: 'finding_detail', arguments: '{"id": 8}' } }]);
    expect(a.calls().map((c) => [c.id, c.name, c.arguments])).toEqual([
      ['', 'search_findings', '{"severity": "high"}'],
      ['', 'search_findings', '{"severity": "critical"}'],
      ['', 'finding_detail', '{"id": 7}'],
      ['', 'finding_detail', '{"id": 8}'],
    ]);
  });

  it('takes whole calls in one fragment each, as Ollama sends them', () => {
    const a = new ToolCallAssembler();
    a.add([
      {
        id: 'call_x1',
        index: 0,
        type: 'function',
        function: { name: 'search_findings', arguments: '{"text":"xss"}' },
      },
      {
        id: 'call_x2',
        index: 1,
        type: 'function',
        function: { name: 'get_corpus_overview', arguments: '{}' },
      },
    ]);
    expect(a.calls().map((c) => [c.id, c.name, JSON.parse(c.arguments)])).toEqual([
      ['call_x1', 'search_findings', { text: 'xss' }],
      ['call_x2', 'get_corpus_overview', {}],
    ]);
  });

  it('stringifies arguments sent as an object, unwraps a doubly encoded object, and reads empty ones as {}', () => {
    const a = new ToolCallAssembler();
    a.add([
      { index: 0, id: 'p', function: { name: 'search_findings', arguments: { severity: 'high', limit: 5 } } },
    ]);
    a.add([
      { index: 1, id: 'q', function: { name: 'finding_detail', arguments: JSON.stringify('{"id": 3}') } },
    ]);
    a.add([{ index: 2, id: 'r', function: { name: 'list_all_reports', arguments: '' } }]);
    a.add([{ index: 3, id: 's', function: { name: 'get_corpus_overview' } }]);
    expect(a.calls().map((c) => c.arguments)).toEqual([
      '{"severity":"high","limit":5}',
      '{"id": 3}',
      '{}',
      '{}',
    ]);
  });

  it('keeps one call when a proxy repeats its id and name in every fragment', () => {
    const a = new ToolCallAssembler();
    a.add([{ index: 0, id: 'c1', function: { name: 'search_findings', arguments: '{"text":' } }]);
    a.add([{ index: 0, id: 'c1', function: { name: 'search_findings', arguments: '"sqli"}' } }]);
    a.add([{ index: 0, id: 'c1', function: { name: 'search_findings', arguments: '' } }]);
    expect(a.calls()).toEqual([
      { index: 0, id: 'c1', name: 'search_findings', arguments: '{"text":"sqli"}' },
    ]);
  });

  it('ignores fragments that are not objects and arguments of other types', () => {
    const a = new ToolCallAssembler();
    a.add([null, 'x', 3] as never);
    a.add('nope' as never);
    a.add([{ index: 0, id: 'k', function: { name: 'list_all_reports', arguments: 42 as never } }]);
    expect(a.calls()).toEqual([{ index: 0, id: 'k', name: 'list_all_reports', arguments: '{}' }]);
  });
});
