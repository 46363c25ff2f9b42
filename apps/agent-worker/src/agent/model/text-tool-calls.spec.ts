import { scanToolMarkup } from './text-tool-calls';
import { jsonCalls } from './tool-call-json';

const args = (s: { calls: { arguments: string }[] }) =>
  s.calls.map((c) => JSON.parse(c.arguments) as unknown);
const names = (s: { calls: { name: string }[] }) => s.calls.map((c) => c.name);

describe('scanToolMarkup at the end of a step', () => {
  it('reads Hermes <tool_call> blocks (Qwen2.5/Hermes templates without a server parser), keeping the text before the first', () => {
    const s = scanToolMarkup(
      'Let me check.\n<tool_call>\n{"name": "search_findings", "arguments": {"severity": "high"}}\n</tool_call>\n<tool_call>\n{"name": "list_all_reports", "arguments": {}}\n</tool_call>',
      true,
    );
    expect(s.text).toBe('Let me check.\n');
    expect(names(s)).toEqual(['search_findings', 'list_all_reports']);
    expect(args(s)).toEqual([{ severity: 'high' }, {}]);
  });

  it('reads a <tool_call> whose closing tag never came, and one whose JSON lost its last brace', () => {
    expect(
      args(scanToolMarkup('<tool_call>\n{"name": "finding_detail", "arguments": {"id": 12}}', true)),
    ).toEqual([{ id: 12 }]);
    const cut = scanToolMarkup(
      '<tool_call>{"name": "finding_detail", "arguments": {"id": 12}\n</tool_call>',
      true,
    );
    expect(cut.calls).toEqual([{ name: 'finding_detail', arguments: '{"id":12}' }]);
  });

  it('drops what the model wrote after a call (an invented tool result is not an answer)', () => {
    const s = scanToolMarkup(
      '<tool_call>{"name": "get_corpus_overview", "arguments": {}}</tool_call>\n<tool_response>{"reports": 99}</tool_response>\nThere are 99 reports.',
      true,
    );
    expect(s.text).toBe('');
    expect(names(s)).toEqual(['get_corpus_overview']);
  });

  it('reads a whole content that is a call object, with Llama 3.x "parameters" (Ollama without a tool template)', () => {
    const s = scanToolMarkup(' {"name": "count_findings_by", "parameters": {"field": "scanner"}}\n', true);
    expect(s).toEqual({
      text: '',
      heldFrom: null,
      calls: [{ name: 'count_findings_by', arguments: '{"field":"scanner"}' }],
    });
  });

  it('reads a JSON list of calls, calls separated by semicolons, and OpenAI-shaped {type, function}', () => {
    expect(
      names(scanToolMarkup('[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {"x": 1}}]', true)),
    ).toEqual(['a', 'b']);
    expect(
      names(scanToolMarkup('{"name": "a", "parameters": {}}; {"name": "b", "parameters": {}}', true)),
    ).toEqual(['a', 'b']);
    expect(
      args(
        scanToolMarkup('{"type": "function", "function": {"name": "a", "arguments": "{\\"id\\": 4}"}}', true),
      ),
    ).toEqual([{ id: 4 }]);
  });

  it('reads a ```json fence holding a call, and shows a fence or JSON that is not one', () => {
    const call = scanToolMarkup(
      'I will search.\n```json\n{"name": "search_findings", "arguments": {"text": "xss"}}\n```',
      true,
    );
    expect(call.text).toBe('I will search.\n');
    expect(args(call)).toEqual([{ text: 'xss' }]);
    const example =
      'The report looks like:\n```json\n{"name": "trivy", "version": "0.50"}\n```\nThat is all.';
    expect(scanToolMarkup(example, true)).toEqual({ text: example, heldFrom: null, calls: [] });
    expect(scanToolMarkup('{"name": "trivy", "findings": 3}', true).calls).toEqual([]);
    expect(scanToolMarkup('[Critical] 4 findings, [High] 9.', true).text).toBe(
      '[Critical] 4 findings, [High] 9.',
    );
  });

  it('reads a call object ending the content on its own line after prose', () => {
    const s = scanToolMarkup(
      'Let me look that up.\n{"name": "finding_detail", "arguments": {"id": 3}}',
      true,
    );
    expect(s.text).toBe('Let me look that up.');
    expect(args(s)).toEqual([{ id: 3 }]);
  });

  it('reads Qwen3-Coder XML with typed parameter values, wrapped in <tool_call> or bare', () => {
    const xml =
      '<function=search_findings>\n<parameter=text>\nSQL injection\n</parameter>\n<parameter=limit>\n5\n</parameter>\n<parameter=exact>\ntrue\n</parameter>\n<parameter=ids>\n[1, 2]\n</parameter>\n<parameter=severity>\nhigh\n</parameter>\n</function>';
    const expected = { text: 'SQL injection', limit: 5, exact: true, ids: [1, 2], severity: 'high' };
    expect(args(scanToolMarkup(`<tool_call>\n${xml}\n</tool_call>`, true))).toEqual([expected]);
    const bare = scanToolMarkup(`Checking.\n${xml}`, true);
    expect(bare.text).toBe('Checking.\n');
    expect(args(bare)).toEqual([expected]);
  });

  it('reads Mistral [TOOL_CALLS] as a JSON list and as name[ARGS]{…}', () => {
    const list = scanToolMarkup(
      '[TOOL_CALLS][{"name": "search_findings", "arguments": {"severity": "low"}, "id": "a1b2c3d4e"}]',
      true,
    );
    expect(list).toEqual({
      text: '',
      heldFrom: null,
      calls: [{ name: 'search_findings', arguments: '{"severity":"low"}' }],
    });
    const v11 = scanToolMarkup(
      '[TOOL_CALLS]count_findings_by[ARGS]{"field": "severity"}[TOOL_CALLS]list_all_reports[ARGS]{}',
      true,
    );
    expect(names(v11)).toEqual(['count_findings_by', 'list_all_reports']);
    expect(args(v11)).toEqual([{ field: 'severity' }, {}]);
  });

  it('keeps arguments that are not JSON as raw text so the tool layer can tell the model', () => {
    const s = scanToolMarkup('[TOOL_CALLS]finding_detail[ARGS]{id: 3}', true);
    expect(s.calls).toEqual([{ name: 'finding_detail', arguments: '{id: 3}' }]);
  });

  it('leaves text with < and [ alone', () => {
    const text = 'Severity <b>high</b> means a < b and [see report] <tool';
    expect(scanToolMarkup(text, true)).toEqual({ text, heldFrom: null, calls: [] });
  });
});

describe('scanToolMarkup while streaming', () => {
  it('holds from an opener until it closes, then judges it', () => {
    expect(scanToolMarkup('Let me check. <tool_call>{"name": "a"', false)).toEqual({
      text: 'Let me check. ',
      heldFrom: 14,
      calls: [],
    });
    expect(scanToolMarkup('Code:\n```json\n{"a": 1}', false)).toEqual({
      text: 'Code:\n',
      heldFrom: 6,
      calls: [],
    });
    expect(scanToolMarkup('Code:\n```json\n{"a": 1}\n```\nok', false)).toEqual({
      text: 'Code:\n```json\n{"a": 1}\n```\nok',
      heldFrom: null,
      calls: [],
    });
    expect(scanToolMarkup('Sure [TOOL_CALLS]a[ARGS]{}', false)).toEqual({
      text: 'Sure ',
      heldFrom: 5,
      calls: [],
    });
  });

  it('holds a suffix that may begin a tag, and releases it once it cannot', () => {
    for (const tail of ['<', '<t', '<too', '</thi', '<func', '`', '``', '[', '[TOOL_C']) {
      expect(scanToolMarkup(`Hi ${tail}`, false)).toEqual({ text: 'Hi ', heldFrom: 3, calls: [] });
    }
    expect(scanToolMarkup('Hi <b', false).heldFrom).toBeNull();
    expect(scanToolMarkup('a < b', false).heldFrom).toBeNull();
  });

  it('holds a step that starts with { or [ until it is known not to be a call', () => {
    expect(scanToolMarkup('{"name": "a", "argu', false)).toEqual({ text: '', heldFrom: 0, calls: [] });
    expect(scanToolMarkup('{"name": "a", "arguments": {}}', false)).toEqual({
      text: '',
      heldFrom: 0,
      calls: [],
    });
    expect(scanToolMarkup('{"name": "a", "arguments": {}}\n{"na', false).heldFrom).toBe(0);
    expect(scanToolMarkup('[Critical] 4 findings', false)).toEqual({
      text: '[Critical] 4 findings',
      heldFrom: null,
      calls: [],
    });
  });
});

describe('scanToolMarkup: call formats small models write', () => {
  it('reads <function=NAME>{json}</function> (Llama 3.1, Functionary) as those arguments, not {}', () => {
    const s = scanToolMarkup(
      'I will search. <function=search_findings>{"text": "sql", "severity": "high"}</function>',
      true,
    );
    expect(s.text).toBe('I will search. ');
    expect(s.calls).toEqual([{ name: 'search_findings', arguments: '{"text":"sql","severity":"high"}' }]);
    // Arguments that are not JSON reach the tool layer as written, so it can tell the model.
    expect(scanToolMarkup('<function=search_findings>{"text": sql}</function>', true).calls).toEqual([
      { name: 'search_findings', arguments: '{"text": sql}' },
    ]);
    expect(scanToolMarkup('<function=list_all_reports></function>', true).calls).toEqual([
      { name: 'list_all_reports', arguments: '{}' },
    ]);
  });

  it('reads calls with no or null arguments as {} (tools without parameters)', () => {
    expect(scanToolMarkup('<tool_call>\n{"name": "get_corpus_overview"}\n</tool_call>', true).calls).toEqual([
      { name: 'get_corpus_overview', arguments: '{}' },
    ]);
    expect(scanToolMarkup('{"name": "list_all_reports"}', true).calls).toEqual([
      { name: 'list_all_reports', arguments: '{}' },
    ]);
    expect(
      scanToolMarkup('<tool_call>{"name": "get_corpus_overview", "arguments": null}</tool_call>', true).calls,
    ).toEqual([{ name: 'get_corpus_overview', arguments: '{}' }]);
    // JSON that merely has a name is data: other keys, or a name that is not an identifier.
    expect(scanToolMarkup('{"name": "openssl", "version": "3.0.2"}', true).calls).toEqual([]);
    expect(scanToolMarkup('{"name": "SQL injection in login"}', true).calls).toEqual([]);
  });

  it('reads a call opening the content or following prose, and drops what comes after it', () => {
    const first = scanToolMarkup(
      '{"name": "search_findings", "arguments": {"text": "sql"}}\n\nI am searching now.',
      true,
    );
    expect(first).toEqual({
      text: '',
      heldFrom: null,
      calls: [{ name: 'search_findings', arguments: '{"text":"sql"}' }],
    });
    expect(
      scanToolMarkup(
        '{"name": "search_findings", "arguments": {"text": "sql"}}\n\nI am searching now.',
        false,
      ),
    ).toEqual({ text: '', heldFrom: 0, calls: [] });

    const more = scanToolMarkup(
      '{"name": "list_all_reports"}\nNow the overview:\n<tool_call>{"name": "get_corpus_overview"}</tool_call>',
      true,
    );
    expect([more.text, names(more)]).toEqual(['', ['list_all_reports', 'get_corpus_overview']]);

    const inline = scanToolMarkup(
      'Let me look that up: {"name": "search_findings", "arguments": {"text": "sql"}} and count them.',
      true,
    );
    expect(inline).toEqual({
      text: 'Let me look that up:',
      heldFrom: null,
      calls: [{ name: 'search_findings', arguments: '{"text":"sql"}' }],
    });

    // After prose the arguments must be written out, and a call nested in other JSON is data.
    const example = 'Filters look like {"name": "lodash"} or {"filter": {"name": "x", "arguments": {}}}.';
    expect(scanToolMarkup(example, true)).toEqual({ text: example, heldFrom: null, calls: [] });
    expect(scanToolMarkup('Counts: {"high": 5, "low": 2}. Done.', true).calls).toEqual([]);
  });

  it('reads a call after prose that an earlier push settled, keeping only the prose before it', () => {
    const s = scanToolMarkup(' "arguments": {"id": 3}}', true, {
      started: true,
      text: 'Looking: {"name": "finding_detail",',
    });
    expect(s).toEqual({
      text: '',
      heldFrom: null,
      calls: [{ name: 'finding_detail', arguments: '{"id":3}' }],
      settledKept: 'Looking:'.length,
    });
  });

  it('reads Llama <|python_tag|> JSON and pythonic [name(key=value)] lists', () => {
    expect(
      scanToolMarkup(
        '<|python_tag|>{"name": "search_findings", "parameters": {"text": "sql"}}<|eom_id|>',
        true,
      ),
    ).toEqual({
      text: '',
      heldFrom: null,
      calls: [{ name: 'search_findings', arguments: '{"text":"sql"}' }],
    });
    expect(scanToolMarkup('<|python_tag|>{"name": "a", "parameters": {}}', false).heldFrom).toBe(0);

    const py = scanToolMarkup(
      '[search_findings(text="sql", severity=\'high\', limit=5, exact=True), get_corpus_overview()]',
      true,
    );
    expect(py.calls).toEqual([
      { name: 'search_findings', arguments: '{"text":"sql","severity":"high","limit":5,"exact":true}' },
      { name: 'get_corpus_overview', arguments: '{}' },
    ]);
    expect(scanToolMarkup('[count_findings_by(field="severity")]', false)).toEqual({
      text: '',
      heldFrom: 0,
      calls: [],
    });
    expect(scanToolMarkup('[a(x=[1, "]", None], y={"k": -2.5})]', true).calls).toEqual([
      { name: 'a', arguments: '{"x":[1,"]",null],"y":{"k":-2.5}}' },
    ]);
  });

  it('shows bracketed prose that is not a whole pythonic call list', () => {
    for (const text of [
      '[see(1)] for more.',
      '[CWE-79(XSS)]',
      '[f("positional")]',
      '[Note (high)]: 5 findings.',
    ]) {
      expect(scanToolMarkup(text, true)).toEqual({ text, heldFrom: null, calls: [] });
    }
  });

  it('reads a gpt-oss commentary-channel call addressed to a function, with or without <|constrain|>', () => {
    const s = scanToolMarkup(
      '<|channel|>commentary to=functions.search_findings <|constrain|>json<|message|>{"text":"sql"}<|call|>',
      true,
    );
    expect(s).toEqual({
      text: '',
      heldFrom: null,
      calls: [{ name: 'search_findings', arguments: '{"text":"sql"}' }],
    });
    expect(
      scanToolMarkup('<|channel|>commentary to=functions.list_all_reports json<|message|>{}', true).calls,
    ).toEqual([{ name: 'list_all_reports', arguments: '{}' }]);
    expect(
      scanToolMarkup('<|channel|>commentary to=functions.a <|constrain|>json<|message|>{"x"', false).heldFrom,
    ).toBe(0);
  });
});

describe('jsonCalls', () => {
  it('needs a name and object arguments', () => {
    expect(jsonCalls('{"name": "a"}')).toBeNull();
    expect(jsonCalls('{"name": "a", "arguments": [1]}')).toBeNull();
    expect(jsonCalls('{"name": "", "arguments": {}}')).toBeNull();
    expect(jsonCalls('[]')).toBeNull();
    expect(jsonCalls('not json')).toBeNull();
    expect(jsonCalls('{"name": " a ", "arguments": {}}')).toEqual([{ name: 'a', arguments: '{}' }]);
  });
});
