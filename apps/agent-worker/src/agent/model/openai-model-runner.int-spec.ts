/**
 * The OpenAI-compatible back end against a scripted OpenAI-compatible HTTP server (real `openai`
 * client, real HTTP, real SSE) and a real database with a few corpus files: event order of a
 * two-step turn, split tool-call arguments, invalid arguments corrected, retry once, timeouts,
 * cancel closing the HTTP connection, the step limit, and the history budget on a long thread.
 */
import 'reflect-metadata';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import {
  CorpusTools,
  defaultCorpusQueries,
  defaultReadOnly,
  searchFindings,
} from '@corpus-chat/corpus-queries';
import { type ModelSettings } from '@corpus-chat/persistence';
import { createTestDatabase, type TestDatabase } from '@corpus-chat/persistence/testing';
import { importCorpusFiles } from '@corpus-chat/ingest/testing';
import { AgentTurnError, type HistoryMessage } from '@corpus-chat/server-core';
import { agentConfig, type AgentConfig } from '../agent.config';
import { buildModelContext } from '../context/context-builder';
import { countMessagesTokens, countToolsTokens } from '../context/token-counter';
import { ScriptedOpenAiServer, script, type ScriptedResponse } from '../testing/scripted-openai-server';
import { TestThread, streamedText, turnContext } from '../testing/turn-harness';
import { OpenAiModelRunner } from './openai-model-runner';

const FILES = [
  'scans/sarif/dd__flawfinder.sarif',
  'scans/sarif/sechub__gosec_2.9.5.sarif.json',
  'scans/trivy/scb__juice-shop-v12.10.2.json',
];

let db: TestDatabase;
let server: ScriptedOpenAiServer;
let tools: CorpusTools;

beforeAll(async () => {
  db = await createTestDatabase();
  expect((await importCorpusFiles(db.dataSource, FILES)).every((o) => o.ok)).toBe(true);
  tools = new CorpusTools(db.dataSource, defaultCorpusQueries, defaultReadOnly);
}, 60_000);
afterAll(async () => db?.drop());
beforeEach(async () => {
  server = await ScriptedOpenAiServer.start();
});
afterEach(async () => server?.close());

const settings = (): ModelSettings => ({
  backend: 'openai',
  baseUrl: server.baseUrl,
  model: 'scripted-model',
  apiKey: null,
  updatedAt: null,
});
const runner = (cfg: Partial<AgentConfig> = {}) =>
  new OpenAiModelRunner(tools, agentConfig({ retryDelayMs: 10, ...cfg }));
/** The exact total the query layer gives for a filter (independent of the agent). */
const total = async (f: Parameters<typeof searchFindings>[1]) =>
  (await searchFindings(db.dataSource.manager, f)).total;

/** Every assistant tool call in a request is followed by its tool result, and no result is orphaned. */
function expectPairedToolMessages(messages: ChatCompletionMessageParam[]): void {
  const pending = new Set<string>();
  for (const m of messages) {
    if (m.role === 'assistant' && m.tool_calls) for (const c of m.tool_calls) pending.add(c.id);
    if (m.role === 'tool') {
      expect(pending.has(m.tool_call_id)).toBe(true);
      pending.delete(m.tool_call_id);
    }
    if (m.role === 'user') expect(pending.size).toBe(0);
  }
  expect(pending.size).toBe(0);
}

describe('OpenAiModelRunner with a scripted OpenAI-compatible server', () => {
  it('runs a two-step turn: tool call (arguments split over chunks), then a streamed answer, events in order', async () => {
    const expected = await total({ text: 'SQL injection', severity: 'high' });
    server.enqueue(
      script.toolCall(
        'search_findings',
        { text: 'SQL injection', severity: 'high' },
        { argParts: 7, leadText: 'Let me count. ' },
      ),
      script.text(`There are ${expected} high findings about SQL injection.`, 4),
    );
    const { ctx, events: all } = turnContext('How many high findings relate to SQL injection?');
    const outcome = await runner().run(ctx, settings());

    // What the model was doing: at its first token, then at most once a second, tokens rising.
    const progress = all.filter((e) => e.type === 'turn.progress');
    expect(progress[0]).toMatchObject({ phase: 'answer', tokens: 1, model: expect.any(String) });
    const counts = progress.map((p) => p.tokens);
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    const events = all.filter((e) => e.type !== 'turn.progress');
    expect(events.map((e) => e.type)).toEqual([
      'text.delta',
      'tool.call',
      'tool.result',
      'text.delta',
      'text.delta',
      'text.delta',
      'text.delta',
      'text.delta',
    ]);
    const call = events[1];
    const result = events[2];
    expect(call).toMatchObject({
      type: 'tool.call',
      name: 'search_findings',
      args: { text: 'SQL injection', severity: 'high' },
    });
    expect(result).toMatchObject({
      type: 'tool.result',
      ok: true,
      callId: (call as { callId: string }).callId,
    });
    expect((result as { summary: string }).summary).toBe(
      `search_findings: ${expected} findings (showing ${Math.min(expected, 10)}) for text='SQL injection', severity=high`,
    );
    expect(outcome.content).toBe(`Let me count.\n\nThere are ${expected} high findings about SQL injection.`);
    expect(
      events
        .filter((e) => e.type === 'text.delta')
        .map((e) => (e as { text: string }).text)
        .join(''),
    ).toBe(outcome.content);
    expect(outcome.metadata).toMatchObject({
      lastFilter: { text: 'SQL injection', severity: 'high' },
      model: 'scripted-model',
    });
    expect(outcome.metadata.toolCalls).toHaveLength(1);

    // The second request carries the reassembled call and the tool's exact total.
    const [first, second] = server.completionRequests;
    expect(first.body).toMatchObject({ stream: true, model: 'scripted-model' });
    expect(first.body.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual([
      'get_corpus_overview',
      'search_findings',
      'count_findings_by',
      'list_all_reports',
      'finding_detail',
      'compare_reports',
    ]);
    const msgs = second.body.messages as ChatCompletionMessageParam[];
    const assistant = msgs.find((m) => m.role === 'assistant') as {
      tool_calls: { id: string; function: { arguments: string } }[];
    };
    expect(JSON.parse(assistant.tool_calls[0].function.arguments)).toEqual({
      text: 'SQL injection',
      severity: 'high',
      limit: 10,
      offset: 0,
    }); // validated, defaults applied
    const tool = msgs.find((m) => m.role === 'tool') as { content: string; tool_call_id: string };
    expect(tool.tool_call_id).toBe(assistant.tool_calls[0].id);
    expect(JSON.parse(tool.content)).toMatchObject({ total: expected, truncated: expected > 10 });
    expectPairedToolMessages(msgs);
  });

  it('reports invalid arguments back to the model, which corrects them on the next step', async () => {
    const expected = await total({ severity: 'critical' });
    server.enqueue(
      script.toolCall('search_findings', { severity: 'severe' }),
      script.toolCall('search_findings', '{"severity": "critical"'), // malformed JSON
      script.toolCall('search_findings', { severity: 'critical' }),
      script.text(`${expected} critical findings.`),
    );
    const { ctx, events } = turnContext('How many critical findings?');
    const outcome = await runner().run(ctx, settings());
    const results = events.filter((e) => e.type === 'tool.result') as { ok: boolean; summary: string }[];
    expect(results.map((r) => r.ok)).toEqual([false, false, true]);
    expect(results[0].summary).toBe(
      "search_findings: invalid arguments: 'severity' must be one of: critical, high, medium, low, info",
    );
    const reqs = server.completionRequests;
    expect(reqs).toHaveLength(4);
    const toolMessage = (i: number) =>
      (reqs[i].body.messages as ChatCompletionMessageParam[]).filter((m) => m.role === 'tool').at(-1)!
        .content as string;
    expect(toolMessage(1)).toContain("'severity' must be one of: critical, high, medium, low, info");
    expect(toolMessage(2)).toContain('not valid JSON');
    expect(JSON.parse(toolMessage(3))).toMatchObject({ total: expected });
    expect(outcome.content).toBe(`${expected} critical findings.`);
    expect(outcome.metadata.toolCalls.map((c) => c.ok)).toEqual([false, false, true]);
    reqs.forEach((r) => expectPairedToolMessages(r.body.messages));
  });

  it('retries a 500 once and then succeeds', async () => {
    server.enqueue(script.status(500, 'CUDA out of memory'), script.text('Hello.'));
    const { ctx } = turnContext('hi');
    const outcome = await runner().run(ctx, settings());
    expect(outcome.content).toBe('Hello.');
    expect(server.completionRequests).toHaveLength(2);
  });

  it('ends the turn naming the server and its message when the retry fails too', async () => {
    server.enqueue(script.status(500, 'CUDA out of memory'), script.status(503, 'model is loading'));
    const { ctx } = turnContext('hi');
    const err = (await runner()
      .run(ctx, settings())
      .catch((e) => e)) as AgentTurnError;
    expect(err).toBeInstanceOf(AgentTurnError);
    expect(err.code).toBe('MODEL_UNAVAILABLE');
    expect(err.message).toContain(`Model server ${server.baseUrl} (model scripted-model)`);
    expect(err.message).toContain('model is loading');
    expect(err.message).toContain('CUDA out of memory');
    expect(server.completionRequests).toHaveLength(2);
  });

  it('does not retry a 4xx (a wrong model name will not fix itself)', async () => {
    server.enqueue(
      script.status(404, 'model "nope" not found, try pulling it first'),
      script.text('never sent'),
    );
    const err = (await runner()
      .run(turnContext('hi').ctx, settings())
      .catch((e) => e)) as AgentTurnError;
    expect(err.code).toBe('MODEL_ERROR');
    expect(err.message).toContain('model "nope" not found');
    expect(server.completionRequests).toHaveLength(1);
  });

  it('retries a refused connection once, then says which server could not be reached', async () => {
    const url = server.baseUrl;
    await server.close();
    const err = (await runner()
      .run(turnContext('hi').ctx, {
        backend: 'openai',
        baseUrl: url,
        model: 'scripted-model',
        apiKey: null,
        updatedAt: null,
      })
      .catch((e) => e)) as AgentTurnError;
    expect(err.code).toBe('MODEL_UNAVAILABLE');
    expect(err.message).toBe(
      `Model server ${url} (model scripted-model): could not connect: connection refused: nothing listens on that port (ECONNREFUSED) (tried twice). An administrator can check the model server under Settings → Test connection.`,
    );
    server = await ScriptedOpenAiServer.start();
  });

  it('retries a malformed stream chunk once', async () => {
    server.enqueue(
      { kind: 'stream', chunks: [{ raw: '{"choices": [ {"delta": ' }] },
      script.text('Recovered.'),
    );
    const outcome = await runner().run(turnContext('hi').ctx, settings());
    expect(outcome.content).toBe('Recovered.');
    expect(server.completionRequests).toHaveLength(2);
  });

  it('waits for a slow first token, and ends with a clear timeout when it takes longer than configured', async () => {
    server.enqueue({
      ...script.text('Slow but fine.'),
      headersDelayMs: 600,
      firstChunkDelayMs: 600,
    } as never);
    const ok = await runner({ firstTokenTimeoutMs: 5000 }).run(turnContext('hi').ctx, settings());
    expect(ok.content).toBe('Slow but fine.');

    server.enqueue({ ...script.text('too late'), firstChunkDelayMs: 2000 } as never);
    const started = Date.now();
    const err = (await runner({ firstTokenTimeoutMs: 400 })
      .run(turnContext('hi').ctx, settings())
      .catch((e) => e)) as AgentTurnError;
    expect(err.code).toBe('TIMEOUT');
    expect(err.message).toContain('no response within 400 ms (MODEL_FIRST_TOKEN_TIMEOUT_MS)');
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('ends a stream that stalls longer than the idle timeout', async () => {
    server.enqueue({ kind: 'stream', chunks: [{ text: 'Part one' }], hang: true });
    const err = (await runner({ streamIdleTimeoutMs: 300 })
      .run(turnContext('hi').ctx, settings())
      .catch((e) => e)) as AgentTurnError;
    expect(err.code).toBe('TIMEOUT');
    expect(err.message).toMatch(/stream stalled for 300 ms .*not retried/);
    await server.waitFor(() => server.completionRequests[0].clientClosed === true, 1000);
  });

  it('cancel aborts the in-flight request: the server sees the connection close within one second', async () => {
    server.enqueue({ kind: 'stream', chunks: [{ text: 'Thinking' }, { text: '…' }], hang: true });
    const ac = new AbortController();
    const { ctx } = turnContext('hi', [], ac.signal);
    let abortedAt = 0;
    ctx.emit = async (e) => {
      if (e.type === 'text.delta' && e.text === '…') {
        abortedAt = Date.now();
        ac.abort(new Error('cancelled by operator'));
      }
    };
    const err = await runner()
      .run(ctx, settings())
      .catch((e) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(AgentTurnError);
    expect(Date.now() - abortedAt).toBeLessThan(1000);
    await server.waitFor(() => server.completionRequests[0]?.closedAt !== undefined, 1000);
    const req = server.completionRequests[0];
    expect(req.clientClosed).toBe(true);
    expect(req.closedAt! - abortedAt).toBeLessThan(1000);
    expect(server.completionRequests).toHaveLength(1); // no retry after a cancel
  });

  it('stops at the step limit when the model keeps calling tools', async () => {
    server.responder = () => script.toolCall('get_corpus_overview', {});
    const err = (await runner({ maxSteps: 3 })
      .run(turnContext('loop').ctx, settings())
      .catch((e) => e)) as AgentTurnError;
    expect(err.code).toBe('STEP_LIMIT');
    expect(err.message).toContain('after 3 steps (AGENT_MAX_STEPS)');
    expect(server.completionRequests).toHaveLength(3);
  });

  it('answers that the question cannot fit instead of overflowing the context with tool results', async () => {
    server.responder = () => script.toolCall('list_all_reports', {});
    const { content } = await runner({ contextTokens: 2200, toolReserveTokens: 0, maxSteps: 20 }).run(
      turnContext('list').ctx,
      settings(),
    );
    expect(content).toMatch(
      /^I can't answer this: the data this question needs does not fit the model's context window/,
    );
    expect(server.completionRequests.length).toBeLessThan(20);
    for (const r of server.completionRequests) {
      expect(countMessagesTokens(r.body.messages) + countToolsTokens(r.body.tools)).toBeLessThanOrEqual(2200);
    }
  });

  it('asks for no more history than can fit its context budget (the pipeline loads no older messages)', () => {
    for (const contextTokens of [1000, 6000]) {
      const limit = runner({ contextTokens }).historyLimit;
      // The cheapest possible messages: one character each, nothing else in the context.
      const history: HistoryMessage[] = Array.from({ length: limit * 2 }, () => ({
        role: 'user',
        content: 'a',
        status: 'complete',
        metadata: {},
      }));
      const ctx = buildModelContext({
        systemPrompt: '',
        tools: [],
        history,
        userMessage: 'b',
        budgetTokens: contextTokens,
        reserveTokens: 0,
      });
      expect(ctx.keptTurns).toBeGreaterThan(0);
      expect(ctx.keptTurns).toBeLessThan(limit);
    }
  });

  it('trims a 200-turn thread to the budget, newest first, and a follow-up still resolves against the previous answer', async () => {
    const history: HistoryMessage[] = [];
    for (let i = 1; i <= 199; i++) {
      history.push({
        role: 'user',
        content: `How many findings mention topic number ${i}? ${'Please be exact. '.repeat(i % 5)}`,
        status: 'complete',
        metadata: {},
      });
      history.push({
        role: 'assistant',
        content: `There are ${i} findings about topic ${i}.`,
        status: 'complete',
        metadata: { lastFilter: { text: `topic ${i}` } },
      });
    }
    const gosec = 'sechub__gosec_2.9.5.sarif.json';
    const inReport = await total({ reportName: gosec });
    history.push({
      role: 'user',
      content: `How many findings are in ${gosec}?`,
      status: 'complete',
      metadata: {},
    });
    history.push({
      role: 'assistant',
      content: `**${inReport}** findings match the filter report=${gosec}.`,
      status: 'complete',
      metadata: { lastFilter: { reportName: gosec } },
    });
    // The model reads the previous answer's filter and narrows it, as the system prompt asks.
    server.responder = (req) => {
      const msgs = req.body.messages as ChatCompletionMessageParam[];
      if (msgs.some((m) => m.role === 'tool')) {
        const result = JSON.parse(msgs.filter((m) => m.role === 'tool').at(-1)!.content as string);
        return script.text(`${result.total} of them are medium.`);
      }
      const prev = msgs.at(-2)!.content as string;
      const report = /report='([^']+)'/.exec(prev)?.[1];
      return script.toolCall('search_findings', { reportName: report, severity: 'medium' });
    };
    const thread = new TestThread({ run: (ctx) => runner().run(ctx, settings()) });
    thread.history.push(...history);
    const turn = await thread.ask('How many of them are medium severity?');
    const expected = await total({ reportName: gosec, severity: 'medium' });
    expect(turn.outcome.content).toBe(`${expected} of them are medium.`);
    expect(turn.outcome.metadata.lastFilter).toEqual({ reportName: gosec, severity: 'medium' });

    const sent = server.completionRequests[0].body.messages as { role: string; content: string }[];
    const tokens = countMessagesTokens(sent) + countToolsTokens(server.completionRequests[0].body.tools);
    expect(tokens).toBeLessThanOrEqual(6000 - 1500);
    expect(sent.length).toBeLessThan(2 * 200);
    expect(sent[0].role).toBe('system');
    expect(sent.at(-1)).toEqual({ role: 'user', content: 'How many of them are medium severity?' });
    expect(sent.at(-2)!.content).toContain(`[filter used: report='${gosec}']`);
    // Newest turns, whole: the oldest kept turn starts with its user message, and turns are consecutive.
    const kept = sent.slice(1, -1);
    expect(kept[0].role).toBe('user');
    const numbers = kept
      .filter((m) => m.role === 'user')
      .map((m) => Number(/topic number (\d+)/.exec(m.content)?.[1] ?? 200));
    expect(numbers).toEqual(numbers.map((_, i) => numbers[0] + i));
    expect(numbers.at(-1)).toBe(200);
  });
});

describe('the answer check, and the rules of a step', () => {
  const question = 'How many findings relate to SQL injection?';
  const search = () => script.toolCall('search_findings', { text: 'SQL injection' });

  it('a re-asked answer that runs into the step limit leaves the first answer standing, with its unsupported number', async () => {
    server.enqueue(
      search(),
      script.text('The exact total is 84 findings.'),
      script.toolCall('search_findings', { text: 'SQL injection' }, { id: 'call_again' }),
    );
    const { ctx, events } = turnContext(question);
    const outcome = await runner({ maxSteps: 3 }).run(ctx, settings());
    expect(outcome.content).toBe('The exact total is 84 findings.');
    expect(outcome.metadata.verification).toEqual({ checked: 1, unsupported: ['84'], reasked: true });
    expect(streamedText(events)).toBe(outcome.content);
    expect(server.completionRequests).toHaveLength(3);
  });

  it('a re-asked answer whose stream is cut leaves the first answer standing', async () => {
    server.enqueue(search(), script.text('The exact total is 84 findings.'), {
      kind: 'stream',
      chunks: [{ text: 'There are' }],
      cut: true,
    });
    const { ctx, events } = turnContext(question);
    const outcome = await runner().run(ctx, settings());
    expect(outcome.content).toBe('The exact total is 84 findings.');
    expect(outcome.metadata.verification).toMatchObject({ unsupported: ['84'], reasked: true });
    expect(streamedText(events)).toBe(outcome.content);
  });

  it("a number in an earlier step's preamble does not make the model answer again (it cannot take it back)", async () => {
    const expected = await total({ text: 'SQL injection' });
    server.enqueue(
      script.toolCall(
        'search_findings',
        { text: 'SQL injection' },
        { leadText: 'Let me look at the 7,777,777 rows.' },
      ),
      script.text(`There are ${expected} findings.`),
    );
    const { ctx } = turnContext(question);
    const outcome = await runner().run(ctx, settings());
    expect(server.completionRequests).toHaveLength(2);
    expect(outcome.metadata.verification).toEqual({ checked: 2, unsupported: ['7,777,777'] });
  });

  it('sends no reasoning_content back for reasoning that came in <think> tags (only a server that streams the field wants it)', async () => {
    server.enqueue(
      script.toolCall(
        'search_findings',
        { text: 'SQL injection' },
        { leadText: '<think>I should search.</think>' },
      ),
      script.text('Done.'),
    );
    const { ctx } = turnContext(question);
    const outcome = await runner().run(ctx, settings());
    expect(outcome.metadata.reasoning).toBe('I should search.');
    const assistant = (server.completionRequests[1].body.messages as Record<string, unknown>[]).find(
      (m) => m['role'] === 'assistant',
    );
    expect(assistant).not.toHaveProperty('reasoning_content');
    expect(assistant).not.toHaveProperty('reasoning');
  });

  it('never runs a tool call whose stream was cut before its finish reason', async () => {
    const cut: ScriptedResponse = {
      kind: 'stream',
      chunks: [{ toolCall: { index: 0, id: 'call_cut', name: 'search_findings', args: '{"text":"SQL' } }],
      cut: true,
    };
    server.enqueue(cut, cut);
    const { ctx, events } = turnContext(question);
    const error = await runner()
      .run(ctx, settings())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentTurnError);
    expect((error as AgentTurnError).message).toContain('the stream ended in the middle of a tool call');
    expect(events.filter((e) => e.type === 'tool.call')).toEqual([]);
    expect(server.completionRequests).toHaveLength(2);
  });

  it('waits out a 503 that says when to come back (a model still loading)', async () => {
    server.enqueue(
      {
        kind: 'status',
        status: 503,
        body: { error: { message: 'model is loading' } },
        headers: { 'retry-after-ms': '50' },
      },
      script.text('Hello.'),
    );
    const { ctx } = turnContext('Hello?');
    const outcome = await runner({ retryDelayMs: 60_000 }).run(ctx, settings());
    expect(outcome.content).toBe('Hello.');
    expect(server.completionRequests).toHaveLength(2);
  });
});
