/**
 * The OpenAI-compatible back end against what real servers send (`encodeIntent` replays the wire
 * format of Ollama, vLLM, llama.cpp, LM Studio, LiteLLM, DeepSeek and OpenAI), through the real
 * `openai` client, the real runner and the real tool layer on a test database: tool calls written
 * as text, reasoning in content or in its own field, parallel calls without distinct indexes,
 * streams that end badly, rate limits, every error-body shape, context-length refusals, strict
 * chat templates and usage. Each test ends with the right tool calls and an answer free of markup,
 * or with an error that says what happened.
 */
import 'reflect-metadata';
import OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
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
import { ScriptedOpenAiServer, type ScriptedResponse } from '../testing/scripted-openai-server';
import {
  encodeIntent,
  profileError,
  streamError,
  type ModelIntent,
  type ServerProfileName,
  type ServerQuirks,
} from '../testing/server-profiles';
import { streamedText, turnContext } from '../testing/turn-harness';
import { modelFetch } from './model-http';
import { OpenAiModelRunner } from './openai-model-runner';

const FILES = [
  'scans/sarif/dd__flawfinder.sarif',
  'scans/sarif/sechub__gosec_2.9.5.sarif.json',
  'scans/trivy/scb__juice-shop-v12.10.2.json',
];

let db: TestDatabase;
let server: ScriptedOpenAiServer;
let tools: CorpusTools;
let critical: number;

beforeAll(async () => {
  db = await createTestDatabase();
  expect((await importCorpusFiles(db.dataSource, FILES)).every((o) => o.ok)).toBe(true);
  tools = new CorpusTools(db.dataSource, defaultCorpusQueries, defaultReadOnly);
  critical = (await searchFindings(db.dataSource.manager, { severity: 'critical' })).total;
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

/** Markup no answer may show: tool-call syntax, reasoning tags, fences of a JSON call. */
const MARKUP = /<\/?tool_call>|<\/?think>|<function=|<parameter=|\[TOOL_CALLS\]|```|"arguments"|"name"\s*:/;

const SEARCH_CRITICAL = { name: 'search_findings', arguments: { severity: 'critical' } };
const ANSWER = () => `There are ${critical} critical findings.`;

/** Runs one turn; the server answers each request with the next of `steps`. */
async function turn(
  profile: ServerProfileName,
  steps: ScriptedResponse[],
  history: HistoryMessage[] = [],
  cfg: Partial<AgentConfig> = {},
) {
  server.profile = profile;
  server.enqueue(...steps);
  const { ctx, events } = turnContext('How many critical findings are there?', history);
  const result = await runner(cfg)
    .run(ctx, settings())
    .then((outcome) => ({ outcome, error: undefined }))
    .catch((error: unknown) => ({ outcome: undefined, error: error as AgentTurnError }));
  return { ...result, events };
}

/** The turn answered: one search for critical findings, then the exact answer, nothing else shown. */
function expectSearchedThenAnswered(r: Awaited<ReturnType<typeof turn>>): void {
  expect(r.error).toBeUndefined();
  const calls = r.events.filter((e) => e.type === 'tool.call');
  expect(calls).toEqual([
    expect.objectContaining({ name: 'search_findings', args: { severity: 'critical' } }),
  ]);
  expect(r.events.filter((e) => e.type === 'tool.result')).toEqual([expect.objectContaining({ ok: true })]);
  expect(r.outcome!.content).toContain(ANSWER());
  expect(r.outcome!.content).not.toMatch(MARKUP);
  expect(streamedText(r.events)).toBe(r.outcome!.content);
  expect(r.outcome!.metadata.toolCalls).toHaveLength(1);
  // The model got the tool's exact result back, paired with its call.
  const second = server.completionRequests[1].body.messages as ChatCompletionMessageParam[];
  const tool = second.find((m) => m.role === 'tool') as { content: string; tool_call_id: string };
  expect(JSON.parse(tool.content)).toMatchObject({ total: critical });
  const assistant = second.find((m) => m.role === 'assistant' && m.tool_calls) as {
    tool_calls: { id: string; function: { name: string; arguments: string } }[];
  };
  // The validated arguments (defaults applied) go back, not the model's raw text.
  const validated = r.outcome!.metadata.toolCalls[0].args;
  expect(validated).toMatchObject({ severity: 'critical' });
  expect(assistant.tool_calls.map((c) => [c.id, c.function.name, JSON.parse(c.function.arguments)])).toEqual([
    [tool.tool_call_id, 'search_findings', validated],
  ]);
}

describe('tool calls written as text (no tool parser on the server)', () => {
  it.each<[string, ServerProfileName, NonNullable<ServerQuirks['toolCallsAsText']>]>([
    ['Hermes <tool_call> JSON (vLLM without --tool-call-parser)', 'vllm', 'hermes'],
    ['a bare JSON object (llama.cpp without --jinja)', 'llamacpp', 'bare-json'],
    ['a fenced ```json block (LM Studio)', 'lmstudio', 'fenced-json'],
    ['Qwen3-Coder <function=…><parameter=…> XML (vLLM)', 'vllm', 'qwen3-coder'],
    ['Mistral [TOOL_CALLS] (vLLM)', 'vllm', 'mistral'],
  ])('%s: runs the call and answers without the markup', async (_name, profile, style) => {
    const r = await turn(profile, [
      encodeIntent(
        profile,
        { text: 'Let me count them.', toolCalls: [SEARCH_CRITICAL] },
        { toolCallsAsText: style },
      ),
      encodeIntent(profile, { text: ANSWER() }),
    ]);
    expectSearchedThenAnswered(r);
    if (r.events.some((e) => (e as { type: string }).type === 'text.reset')) {
      expect(r.events).toContainEqual(expect.objectContaining({ type: 'text.reset', reason: 'tool_call' }));
    }
  });
});

describe('reasoning is kept in metadata.reasoning, never in the answer', () => {
  const REASONING = 'The operator wants a count, so I call search_findings with severity critical.';

  it.each<[string, ServerProfileName, ServerQuirks]>([
    [
      '<think>…</think> in content (llama.cpp --reasoning-format none)',
      'llamacpp',
      { thinkInContent: 'tags' },
    ],
    ['a lone </think> in content (the template opened the tag)', 'vllm', { thinkInContent: 'closing-only' }],
    ['the reasoning_content field (vLLM reasoning parser)', 'vllm', {}],
    ['the reasoning_content field (llama.cpp --reasoning-format deepseek)', 'llamacpp', {}],
    ['the reasoning field (Ollama)', 'ollama', {}],
  ])('%s', async (_name, profile, quirks) => {
    const r = await turn(profile, [
      encodeIntent(profile, { reasoning: REASONING, toolCalls: [SEARCH_CRITICAL] }, quirks),
      encodeIntent(profile, { reasoning: 'Now I state the exact total.', text: ANSWER() }, quirks),
    ]);
    expectSearchedThenAnswered(r);
    expect(r.outcome!.content).not.toContain('search_findings with severity');
    expect(r.outcome!.content).not.toContain('exact total');
    expect(r.outcome!.metadata.reasoning).toContain(REASONING);
    expect(r.outcome!.metadata.reasoning).toContain('Now I state the exact total.');
  });

  it('DeepSeek thinking mode: sends reasoning_content back with the tool call within the turn', async () => {
    server.checks = { requireReasoningBack: true };
    const r = await turn('deepseek', [
      encodeIntent('deepseek', { reasoning: REASONING, toolCalls: [SEARCH_CRITICAL] }),
      encodeIntent('deepseek', { reasoning: 'Done.', text: ANSWER() }),
    ]);
    expect(server.rejected.total).toBe(0);
    expectSearchedThenAnswered(r);
    const assistant = (
      server.completionRequests[1].body.messages as {
        role: string;
        tool_calls?: unknown[];
        reasoning_content?: string;
      }[]
    ).find((m) => m.role === 'assistant' && m.tool_calls);
    expect(assistant?.reasoning_content).toBe(REASONING);
    expect(r.outcome!.metadata.reasoning).toContain(REASONING);
  });
});

describe('tool-call deltas the assembler must not merge or lose', () => {
  const TWO_CALLS: ModelIntent = {
    toolCalls: [
      { name: 'get_corpus_overview', arguments: {} },
      { name: 'search_findings', arguments: { severity: 'critical' } },
    ],
  };

  it.each<[string, ServerProfileName, ServerQuirks]>([
    ['parallel calls all with index 0 (older Ollama)', 'ollama', { parallelIndexZero: true }],
    ['parallel calls without index (some proxies)', 'llamacpp', { noIndex: true }],
  ])('%s: both calls run, each result paired with its own id', async (_name, profile, quirks) => {
    const r = await turn(profile, [
      encodeIntent(profile, TWO_CALLS, quirks),
      encodeIntent(profile, { text: ANSWER() }),
    ]);
    expect(r.error).toBeUndefined();
    expect(
      r.events
        .filter((e) => e.type === 'tool.call')
        .map((e) => [(e as { name: string }).name, (e as { args: unknown }).args]),
    ).toEqual([
      ['get_corpus_overview', {}],
      ['search_findings', { severity: 'critical' }],
    ]);
    expect(r.events.filter((e) => e.type === 'tool.result').map((e) => (e as { ok: boolean }).ok)).toEqual([
      true,
      true,
    ]);
    const msgs = server.completionRequests[1].body.messages as ChatCompletionMessageParam[];
    const assistant = msgs.find((m) => m.role === 'assistant') as { tool_calls: { id: string }[] };
    const results = msgs.filter((m) => m.role === 'tool') as { tool_call_id: string }[];
    expect(new Set(assistant.tool_calls.map((c) => c.id)).size).toBe(2);
    expect(results.map((m) => m.tool_call_id)).toEqual(assistant.tool_calls.map((c) => c.id));
    expect(r.outcome!.content).toBe(ANSWER());
  });

  it('arguments sent as a JSON object instead of a string', async () => {
    const r = await turn('llamacpp', [
      encodeIntent('llamacpp', { toolCalls: [SEARCH_CRITICAL] }, { argumentsAsObject: true }),
      encodeIntent('llamacpp', { text: ANSWER() }),
    ]);
    expectSearchedThenAnswered(r);
  });
});

describe('what the model is doing while it reads the prompt', () => {
  it('asks llama.cpp for its prompt progress and reports it; asks no other server', async () => {
    const answer = encodeIntent('llamacpp', { text: ANSWER() }) as Extract<
      ScriptedResponse,
      { kind: 'stream' }
    >;
    // llama.cpp with `return_progress`: chunks without choices, carrying `prompt_progress`.
    const reading = (processed: number) => ({
      json: {
        object: 'chat.completion.chunk',
        choices: [],
        prompt_progress: { total: 2048, cache: 0, processed, time_ms: processed / 10 },
      },
    });
    const r = await turn('llamacpp', [{ ...answer, chunks: [reading(1024), ...answer.chunks] }]);
    expect(r.error).toBeUndefined();
    expect(server.completionRequests.at(-1)!.body.return_progress).toBe(true);
    expect(r.events.find((e) => e.type === 'turn.progress')).toMatchObject({
      phase: 'prompt',
      tokens: 0,
      prompt: { processed: 1024, total: 2048 },
    });
  });

  it.each<[ServerProfileName]>([['vllm'], ['ollama']])('does not ask %s for it', async (profile) => {
    expect((await turn(profile, [encodeIntent(profile, { text: ANSWER() })])).error).toBeUndefined();
    expect(server.completionRequests.at(-1)!.body).not.toHaveProperty('return_progress');
  });
});

describe('streams that end without a usable answer', () => {
  it('a stream cut without finish reason or [DONE] is an error, and the text streamed so far stays', async () => {
    const r = await turn('vllm', [encodeIntent('vllm', { text: 'There are 12 crit', finish: null })]);
    expect(r.error).toBeInstanceOf(AgentTurnError);
    expect(r.error!.code).toBe('MODEL_ERROR');
    expect(r.error!.message).toMatch(/ended before|closed before|without (a )?finish|cut/i);
    expect(streamedText(r.events)).toBe('There are 12 crit');
    expect(server.completionRequests).toHaveLength(1); // text was streamed: no retry
  });

  it.each<[ServerProfileName]>([['vllm'], ['llamacpp']])(
    '%s failing after the stream started: an error, not a half answer taken as complete',
    async (profile) => {
      const started = encodeIntent(profile, { text: 'There are 12 crit', finish: null }) as Extract<
        ScriptedResponse,
        { kind: 'stream' }
      >;
      const failure = streamError(profile, 'CUDA error: an illegal memory access was encountered');
      const r = await turn(profile, [
        { kind: 'stream', chunks: [...started.chunks, ...failure.chunks], cut: failure.cut },
      ]);
      expect(r.error).toBeInstanceOf(AgentTurnError);
      // llama.cpp's `error:` line never reaches an SSE client, so only vLLM's words can be shown.
      if (profile === 'vllm')
        expect(r.error!.message).toContain('CUDA error: an illegal memory access was encountered');
      expect(streamedText(r.events)).toBe('There are 12 crit');
    },
  );

  it('only reasoning and no answer is an error, and the reasoning is not shown as the answer', async () => {
    server.responder = () =>
      encodeIntent('vllm', { reasoning: 'Hmm, let me think about severities for a while.' });
    const r = await turn('vllm', []);
    expect(r.error).toBeInstanceOf(AgentTurnError);
    expect(r.error!.code).toBe('MODEL_ERROR');
    expect(r.error!.message).toMatch(/no answer|only reasoning|empty answer|reasoning but no/i);
    expect(streamedText(r.events)).not.toContain('severities for a while');
  });

  it('finish_reason length ends with an error saying the answer was cut off', async () => {
    const r = await turn('ollama', [
      encodeIntent('ollama', { text: 'The critical findings are, in order of', finish: 'length' }),
    ]);
    expect(r.error).toBeInstanceOf(AgentTurnError);
    expect(r.error!.message).toMatch(/cut off/i);
    expect(r.error!.message).not.toMatch(/^undefined|\[object/);
  });
});

describe('errors of real servers', () => {
  it('429 with Retry-After: waits as told, then succeeds', async () => {
    server.checks = { rateLimit: { times: 1, retryAfterSeconds: 1 } };
    const r = await turn('litellm', [encodeIntent('litellm', { text: 'Hello.' })]);
    expect(r.error).toBeUndefined();
    expect(r.outcome!.content).toBe('Hello.');
    const [limited, ok] = server.completionRequests;
    expect(server.rejected.rateLimited).toBe(1);
    // Retry-After is a lower bound the runner must honour (retryDelayMs is 10 ms here).
    expect(ok.receivedAt - limited.receivedAt).toBeGreaterThanOrEqual(1000);
  });

  it.each<[string, ScriptedResponse, string]>([
    [
      'vLLM {"object":"error"}',
      profileError('vllm', 400, 'top_k must be -1 (disable), or at least 1, got 0.'),
      'top_k must be -1 (disable), or at least 1, got 0.',
    ],
    [
      'Ollama native {"error":"text"}',
      { kind: 'status', status: 404, body: { error: 'model "qwen3:8b" not found, try pulling it first' } },
      'model "qwen3:8b" not found, try pulling it first',
    ],
    [
      'LM Studio {"error":"text"}',
      profileError(
        'lmstudio',
        400,
        'No models loaded. Please load a model in the developer page or use the `lms load` command.',
      ),
      'No models loaded.',
    ],
    [
      'llama.cpp {"error":{"code","message","type"}}',
      profileError('llamacpp', 400, 'tools param requires --jinja flag'),
      'tools param requires --jinja flag',
    ],
    [
      'LiteLLM {"error":{"code":"400"}}',
      profileError(
        'litellm',
        400,
        'litellm.BadRequestError: Invalid model name passed in model=scripted-model',
      ),
      'Invalid model name passed in model=scripted-model',
    ],
    [
      'FastAPI {"detail":"text"}',
      { kind: 'status', status: 401, body: { detail: 'Invalid or missing API key' } },
      'Invalid or missing API key',
    ],
    [
      'FastAPI {"detail":[{msg}]}',
      {
        kind: 'status',
        status: 422,
        body: {
          detail: [{ loc: ['body', 'messages', 0, 'content'], msg: 'Input should be a valid string' }],
        },
      },
      'Input should be a valid string',
    ],
    [
      'a proxy’s plain text',
      { kind: 'status', status: 403, text: 'Forbidden: IP not allowed' },
      'Forbidden: IP not allowed',
    ],
    [
      'a proxy’s HTML page',
      {
        kind: 'status',
        status: 413,
        contentType: 'text/html',
        text: '<html><head><title>413 Request Entity Too Large</title></head><body>nginx</body></html>',
      },
      '413 Request Entity Too Large',
    ],
  ])('%s: the server’s words reach the error', async (_name, response, words) => {
    const r = await turn('openai', [response]);
    expect(r.error).toBeInstanceOf(AgentTurnError);
    expect(r.error!.code).toBe('MODEL_ERROR');
    expect(r.error!.message).toContain(words);
    expect(r.error!.message).not.toMatch(/undefined|\{"|<html|<title/);
    expect(server.completionRequests).toHaveLength(1);
  });

  it('Ollama model without tool support: says so, naming the model', async () => {
    server.checks = { rejectTools: true };
    const r = await turn('ollama', []);
    expect(r.error).toBeInstanceOf(AgentTurnError);
    expect(r.error!.message).toContain(
      'registry.ollama.ai/library/scripted-model:latest does not support tools',
    );
  });

  const longHistory = (turns: number): HistoryMessage[] =>
    Array.from({ length: turns }, (_, i) => [
      {
        role: 'user' as const,
        content: `How many findings mention topic ${i + 1}?`,
        status: 'complete' as const,
        metadata: {},
      },
      {
        role: 'assistant' as const,
        content: `There are ${i + 1} findings about topic ${i + 1}.`,
        status: 'complete' as const,
        metadata: {},
      },
    ]).flat();

  it('llama.cpp names its n_ctx when it refuses: the worker budgets with it, trims the history and answers', async () => {
    // The server reports a roomy window (discovery) but runs with a smaller one, as a server
    // restarted with another --ctx-size does until the cached window expires.
    server.checks = { contextLength: 2400 };
    const reply = 'Which report do you mean?';
    const r = await turn('llamacpp', [encodeIntent('llamacpp', { text: reply })], longHistory(40));
    expect(r.error).toBeUndefined();
    expect(r.outcome!.content).toBe(reply);
    const [first, second] = server.completionRequests;
    expect(server.rejected.total).toBe(1);
    expect(second.body.messages.length).toBeLessThan(first.body.messages.length);
    expect(second.body.messages.at(-1)).toEqual({
      role: 'user',
      content: 'How many critical findings are there?',
    });
  });

  it.each<[ServerProfileName, RegExp]>([
    ['llamacpp', /--ctx-size|-c\b/],
    ['vllm', /--max-model-len/],
  ])(
    '%s names a window too small for the message itself: no retry, an error naming AGENT_CONTEXT_TOKENS and the server setting',
    async (profile, setting) => {
      server.checks = { contextLength: 300 };
      const r = await turn(profile, [], longHistory(6));
      expect(r.error).toBeInstanceOf(AgentTurnError);
      expect(r.error!.code).toBe('CONTEXT_OVERFLOW');
      expect(r.error!.message).toContain('AGENT_CONTEXT_TOKENS');
      expect(r.error!.message).toMatch(setting);
      expect(server.completionRequests).toHaveLength(1);
    },
  );

  it('Ollama refuses without naming its window: retried once with the latest turn only, then an error naming num_ctx', async () => {
    server.checks = { contextLength: 300 };
    const r = await turn('ollama', [], longHistory(6));
    expect(r.error).toBeInstanceOf(AgentTurnError);
    expect(r.error!.code).toBe('CONTEXT_OVERFLOW');
    expect(r.error!.message).toMatch(/num_ctx|OLLAMA_CONTEXT_LENGTH/);
    expect(r.error!.message).toContain('also with a smaller history');
    const [first, second] = server.completionRequests;
    expect(server.completionRequests).toHaveLength(2);
    expect(second.body.messages.map((m: { role: string }) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'user',
    ]);
    expect(first.body.messages.length).toBeGreaterThan(second.body.messages.length);
  });
});

describe('what the worker sends', () => {
  it('never two user messages in a row, even after a cancelled answer with no text (strict Jinja template)', async () => {
    server.checks = { strictAlternation: true };
    const history: HistoryMessage[] = [
      { role: 'user', content: 'How many reports are there?', status: 'complete', metadata: {} },
      { role: 'assistant', content: 'There are 3 reports.', status: 'complete', metadata: {} },
      { role: 'user', content: 'And how many findings?', status: 'complete', metadata: {} },
      { role: 'assistant', content: '', status: 'cancelled', metadata: {} },
    ];
    const r = await turn(
      'vllm',
      [encodeIntent('vllm', { toolCalls: [SEARCH_CRITICAL] }), encodeIntent('vllm', { text: ANSWER() })],
      history,
    );
    expect(server.rejected.total).toBe(0);
    expectSearchedThenAnswered(r);
    for (const req of server.completionRequests) {
      const roles = (req.body.messages as { role: string }[])
        .map((m) => m.role)
        .filter((role) => role !== 'system');
      roles.forEach((role, i) => {
        if (i > 0 && role === 'user') expect(roles[i - 1]).not.toBe('user');
      });
    }
  });

  it('records the usage each request reported (metadata.modelRequests), asking for it with stream_options', async () => {
    const r = await turn('ollama', [
      encodeIntent('ollama', {
        toolCalls: [SEARCH_CRITICAL],
        usage: { promptTokens: 812, completionTokens: 17 },
      }),
      encodeIntent('ollama', { text: ANSWER(), usage: { promptTokens: 1043, completionTokens: 11 } }),
    ]);
    expectSearchedThenAnswered(r);
    expect(server.completionRequests[0].body.stream_options).toEqual({ include_usage: true });
    expect(r.outcome!.metadata.modelRequests).toEqual([
      { step: 1, promptTokens: 812, completionTokens: 17 },
      { step: 2, promptTokens: 1043, completionTokens: 11 },
    ]);
  });
});

describe('the profiles’ side routes (context discovery)', () => {
  const root = () => server.baseUrl.replace(/\/v1$/, '');
  const get = async (path: string, init?: RequestInit) =>
    (await fetch(`${root()}${path}`, init)).json() as Promise<Record<string, any>>;

  it('vLLM lists max_model_len; llama.cpp /props gives n_ctx; Ollama /api/show and /api/ps; LM Studio /api/v0/models', async () => {
    server.contextLength = 16384;
    server.profile = 'vllm';
    expect((await get('/v1/models')).data[0]).toMatchObject({ id: 'scripted-model', max_model_len: 16384 });

    server.profile = 'llamacpp';
    expect((await get('/props')).default_generation_settings.n_ctx).toBe(16384);
    server.propsLayout = 'top-level';
    const props = await get('/props');
    expect(props.n_ctx).toBe(16384);
    expect(props.default_generation_settings).toBeUndefined();
    expect((await get('/v1/models')).data[0].meta.n_ctx_train).toBe(32768);

    server.profile = 'ollama';
    const show = await get('/api/show', {
      method: 'POST',
      body: JSON.stringify({ model: 'scripted-model' }),
    });
    expect(show.model_info['qwen2.context_length']).toBe(32768);
    expect(show.parameters).toMatch(/^num_ctx\s+16384$/m);
    expect((await get('/api/ps')).models[0].context_length).toBe(16384);
    expect(await get('/api/show', { method: 'POST', body: JSON.stringify({ model: 'nope' }) })).toEqual({
      error: "model 'nope' not found",
    });

    server.profile = 'lmstudio';
    expect((await get('/api/v0/models')).data[0]).toMatchObject({
      id: 'scripted-model',
      max_context_length: 32768,
      loaded_context_length: 16384,
    });
  });
});

describe('the wire format each profile streams (read by the real client)', () => {
  const INTENT: ModelIntent = {
    reasoning: 'Count them.',
    toolCalls: [SEARCH_CRITICAL],
    usage: { promptTokens: 100, completionTokens: 9 },
  };

  async function chunks(
    profile: ServerProfileName,
    intent: ModelIntent = INTENT,
    includeUsage = true,
  ): Promise<ChatCompletionChunk[]> {
    server.profile = profile;
    server.enqueue(encodeIntent(profile, intent));
    const client = new OpenAI({ baseURL: server.baseUrl, apiKey: 'k', maxRetries: 0, fetch: modelFetch });
    const out: ChatCompletionChunk[] = [];
    const stream = await client.chat.completions.create({
      model: 'qwen3:8b',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      ...(includeUsage ? { stream_options: { include_usage: true } } : {}),
    });
    for await (const c of stream) out.push(c);
    return out;
  }
  const deltas = (cs: ChatCompletionChunk[]) =>
    cs.flatMap((c) => c.choices.map((ch) => ch.delta as Record<string, unknown>));
  const calls = (cs: ChatCompletionChunk[]) =>
    deltas(cs).flatMap((d) => (d['tool_calls'] as Record<string, any>[] | undefined) ?? []);

  it('Ollama: role first, `reasoning`, each call whole with a call_xxxxxxxx id, an empty finish delta, usage alone last', async () => {
    const cs = await chunks('ollama');
    expect(
      cs.every(
        (c) =>
          /^chatcmpl-\d{1,3}$/.test(c.id) && c.model === 'qwen3:8b' && c.system_fingerprint === 'fp_ollama',
      ),
    ).toBe(true);
    expect(deltas(cs)[0]).toMatchObject({ role: 'assistant', content: '', reasoning: expect.any(String) });
    expect(
      deltas(cs)
        .map((d) => d['reasoning'] ?? '')
        .join(''),
    ).toBe('Count them.');
    expect(calls(cs)).toEqual([
      {
        index: 0,
        id: expect.stringMatching(/^call_[a-z0-9]{8}$/),
        type: 'function',
        function: { name: 'search_findings', arguments: '{"severity":"critical"}' },
      },
    ]);
    expect(cs.at(-2)!.choices[0]).toMatchObject({ delta: {}, finish_reason: 'tool_calls' });
    expect(cs.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 100, completion_tokens: 9, total_tokens: 109 },
    });
    // middleware/openai.go: no usage unless the request asks for it.
    const quiet = await chunks('ollama', INTENT, false);
    expect(quiet.some((c) => c.usage)).toBe(false);
    expect(quiet.at(-1)!.choices[0]).toMatchObject({ finish_reason: 'tool_calls' });
  });

  it('vLLM: `reasoning_content`, the call’s name before its argument fragments, a chatcmpl-tool- id', async () => {
    const cs = await chunks('vllm');
    expect(deltas(cs)[0]).toMatchObject({ role: 'assistant', content: '' });
    expect(
      deltas(cs)
        .map((d) => d['reasoning_content'] ?? '')
        .join(''),
    ).toBe('Count them.');
    const [head, ...frags] = calls(cs);
    expect(head).toEqual({
      index: 0,
      id: expect.stringMatching(/^chatcmpl-tool-[0-9a-f]{32}$/),
      type: 'function',
      function: { name: 'search_findings' },
    });
    expect(frags.length).toBeGreaterThan(1);
    expect(frags.map((f) => f.function.arguments).join('')).toBe('{"severity":"critical"}');
    expect(cs.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 100 } });
  });

  it('llama.cpp: content null in the role chunk, usage and timings on the finish chunk', async () => {
    const cs = await chunks('llamacpp');
    expect(deltas(cs)[0]).toMatchObject({ role: 'assistant', content: null });
    expect(calls(cs)[0]).toMatchObject({
      index: 0,
      id: expect.stringMatching(/^[A-Za-z0-9]{32}$/),
      function: { name: 'search_findings' },
    });
    expect(cs.at(-1)).toMatchObject({
      choices: [{ finish_reason: 'tool_calls' }],
      usage: { completion_tokens: 9 },
      timings: { predicted_n: 9 },
    });
  });

  it('DeepSeek: a uuid id, reasoning_content with content null, usage on the finish chunk', async () => {
    const cs = await chunks('deepseek', {
      reasoning: 'Count them.',
      text: 'Twelve.',
      usage: { promptTokens: 5, completionTokens: 2 },
    });
    expect(cs[0].id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(deltas(cs)[0]).toMatchObject({ role: 'assistant', content: null, reasoning_content: 'Count ' });
    expect(
      deltas(cs)
        .map((d) => d['content'] ?? '')
        .join(''),
    ).toBe('Twelve.');
    expect(cs.at(-1)).toMatchObject({ choices: [{ finish_reason: 'stop' }], usage: { prompt_tokens: 5 } });
  });

  it('OpenAI streams no reasoning, and `usage: null` on every chunk before the usage chunk', async () => {
    const cs = await chunks('openai');
    expect(deltas(cs).some((d) => 'reasoning' in d || 'reasoning_content' in d)).toBe(false);
    expect(cs.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    expect(cs.at(-1)).toMatchObject({ choices: [], usage: { total_tokens: 109 } });
  });

  it('finish null: no finish reason and no [DONE], the connection just ends', async () => {
    server.enqueue(encodeIntent('vllm', { text: 'Partial', finish: null }));
    const res = await fetch(`${server.baseUrl}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', stream: true }),
    });
    const body = await res.text();
    expect(body).toContain('"content":"Parti"');
    expect(body).not.toContain('[DONE]');
    expect(body).not.toMatch(/"finish_reason":"/);
  });
});
