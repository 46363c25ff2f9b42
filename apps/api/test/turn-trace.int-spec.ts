import 'reflect-metadata';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { ChatDetailView, ChatSummaryView, PostMessageResponse } from '@corpus-chat/contracts';
import { writeModelSettings } from '@corpus-chat/persistence';
import { corpusPath, importCorpusFiles } from '@corpus-chat/ingest/testing';
import { createTestDatabase, type TestDatabase } from '@corpus-chat/persistence/testing';
import { startTracing } from '@corpus-chat/server-core';
// The worker's scripted model server (test-only code): this spec runs the real worker against it.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { ScriptedOpenAiServer, script } from '../../agent-worker/src/agent/testing/scripted-openai-server';
import {
  type ApiInstance,
  eventually,
  newDeployment,
  signIn,
  startApiInstance,
} from './support/chat-harness';
import type { LoginSession } from './support/login';
import { spawnWorkerProcess, type WorkerProcess } from './support/worker-process';

jest.setTimeout(120_000);

/** A span as OTLP/HTTP JSON carries it. */
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
}

/**
 * One turn is one trace: the API's request span (exported in this process), and under it the
 * worker process's job, model requests and tool queries, which the worker exports with the real
 * OTLP/HTTP exporter configured by the standard OTEL_* variables to a receiver in this test.
 */
describe('a turn as one OpenTelemetry trace: API → job → model requests and tool queries', () => {
  let db: TestDatabase;
  let api: ApiInstance;
  let worker: WorkerProcess;
  let model: ScriptedOpenAiServer;
  let operator: LoginSession;
  let receiver: http.Server;
  const received: OtlpSpan[] = [];
  const apiSpans = new InMemorySpanExporter();
  let stopTracing: (() => Promise<void>) | null;

  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const parsed = JSON.parse(body) as {
          resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[];
        };
        for (const r of parsed.resourceSpans) for (const s of r.scopeSpans) received.push(...s.spans);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    stopTracing = startTracing('corpus-chat-api', new SimpleSpanProcessor(apiSpans));
    db = await createTestDatabase();
    await importCorpusFiles(db.dataSource, ['scans/sarif/dd__flawfinder.sarif']);
    model = await ScriptedOpenAiServer.start();
    await writeModelSettings(db.dataSource, {
      backend: 'openai',
      baseUrl: model.baseUrl,
      model: 'scripted-model',
      apiKey: 'sk-test',
    });
    const deployment = newDeployment();
    const port = (receiver.address() as AddressInfo).port;
    [api, worker] = await Promise.all([
      startApiInstance({ databaseUrl: db.url, ...deployment }),
      spawnWorkerProcess({
        databaseUrl: db.url,
        redisPrefix: deployment.redisPrefix,
        env: {
          TEST_AGENT: 'production',
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${port}/v1/traces`,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
          OTEL_BSP_SCHEDULE_DELAY: '50',
        },
      }),
    ]);
    operator = await signIn(api, db.dataSource);
  }, 120_000);

  afterAll(async () => {
    await worker?.stop();
    await api?.close();
    await stopTracing?.();
    await model?.close();
    await db?.drop();
    receiver?.close();
  });

  it('a two-tool turn yields one trace of at least 6 spans, the worker’s under the API’s', async () => {
    model.enqueue(
      script.toolCall('list_all_reports', {}),
      script.toolCall('get_corpus_overview', {}),
      script.text('Here is the overview of the corpus.'),
    );
    const server = () => request(api.app.getHttpServer());
    const chat = await server().post('/api/chats').set(operator.headers).send({});
    const chatId = (chat.body as ChatSummaryView).id;
    const posted = await server()
      .post(`/api/chats/${chatId}/messages`)
      .set(operator.headers)
      .send({ content: 'Give me an overview of the corpus' });
    expect(posted.status).toBe(202);
    const { turnId } = posted.body as PostMessageResponse;
    await eventually(
      async () => {
        const thread = (await server().get(`/api/chats/${chatId}`).set(operator.headers))
          .body as ChatDetailView;
        return thread.messages.find(
          (m) => m.role === 'assistant' && m.turnId === turnId && m.status === 'complete',
        );
      },
      60_000,
      'the answer',
    );
    const [post] = apiSpans.getFinishedSpans().filter((s) => s.name === 'chat.post-message');
    const traceId = post.spanContext().traceId;
    const inTrace = () => received.filter((s) => s.traceId === traceId);
    await eventually(
      async () =>
        inTrace().filter((s) => s.name !== 'turn.run').length >= 5 &&
        inTrace().some((s) => s.name === 'turn.run')
          ? true
          : undefined,
      20_000,
      'the worker’s spans at the receiver',
    );
    const spans = inTrace();
    const run = spans.find((s) => s.name === 'turn.run')!;
    expect(run.parentSpanId).toBe(post.spanContext().spanId);
    expect(spans.filter((s) => s.name === 'model.request')).toHaveLength(3);
    expect(spans.filter((s) => s.name === 'tool.query')).toHaveLength(2);
    for (const s of spans.filter((s) => s !== run)) expect(s.parentSpanId).toBe(run.spanId);
    expect(spans.length + 1).toBeGreaterThanOrEqual(6);
  });

  it('an uploaded report is one trace too: the upload request, then the worker’s import under it', async () => {
    const bytes = fs.readFileSync(corpusPath('scans/zap/dd__juicy2.xml'));
    const upload = await request(api.app.getHttpServer())
      .post('/api/reports/import')
      .set(operator.headers)
      .attach('files', bytes, 'juicy2.xml');
    expect(upload.status).toBe(202);
    const [queued] = apiSpans.getFinishedSpans().filter((s) => s.name === 'import.queue');
    const run = await eventually(
      async () => received.find((s) => s.name === 'import.run' && s.traceId === queued.spanContext().traceId),
      30_000,
      'the import.run span at the receiver',
    );
    expect(run?.parentSpanId).toBe(queued.spanContext().spanId);
  });
});
