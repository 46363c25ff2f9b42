import { ToolCallAssembler } from './tool-call-assembler';

describe('ToolCallAssembler', () => {
  it('joins argument fragments split anywhere, even inside strings and escapes', () => {
    const a = new ToolCallAssembler();
    const json = JSON.stringify({ text: 'say "hi" \\ SQL injection', severity: 'high' });
    a.add([{ index: 0, id: 'call_1', type: 'function', function: { name: 'search_findings', arguments: '' } }]);
    for (let i = 0; i < json.length; i += 3) a.add([{ index: 0, function: { arguments: json.slice(i, i + 3) } }]);
    expect(a.calls()).toEqual([{ index: 0, id: 'call_1', name: 'search_findings', arguments: json }]);
    expect(JSON.parse(a.calls()[0].arguments)).toEqual({ text: 'say "hi" \\ SQL injection', severity: 'high' });
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

  it('handles servers that omit the index and the id', () => {
    const a = new ToolCallAssembler();
    a.add([{ function: { name: 'search_findings', arguments: '{"te' } }]);
    a.add([{ function: { arguments: 'xt":"x"}' } }]);
    expect(a.calls()).toEqual([{ index: 0, id: 'call_0', name: 'search_findings', arguments: '{"text":"x"}' }]);
  });

  it('does not double a name that is repeated in later fragments', () => {
    const a = new ToolCallAssembler();
    a.add([{ index: 0, id: 'x', function: { name: 'search_findings', arguments: '{' } }]);
    a.add([{ index: 0, function: { name: 'search_findings', arguments: '}' } }]);
    expect(a.calls()[0].name).toBe('search_findings');
  });
});
