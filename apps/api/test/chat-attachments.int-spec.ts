import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import { Queue } from 'bullmq';
import request from 'supertest';
import {
  type ChatAttachmentView,
  type ChatEventOf,
  IMPORT_FORMAT_NAMES,
  IMPORTS_QUEUE,
  REPORT_FORMATS,
  SEVERITIES,
  type Severity,
  SUPPORTED_IMPORT_FORMATS,
} from '@corpus-chat/contracts';
import { parseReportFile } from '@corpus-chat/ingest';
import { corpusPath } from '@corpus-chat/ingest/testing';
import { createTestDatabase, type TestDatabase } from '@corpus-chat/persistence/testing';
import { RedisKeys, redisOptionsFromUrl } from '@corpus-chat/server-core';
import {
  type ApiInstance,
  type EventCollector,
  newDeployment,
  openChatSocket,
  signIn,
  startApiInstance,
} from './support/chat-harness';
import { ImportViews } from './support/import-views';
import type { LoginSession } from './support/login';
import { spawnWorkerProcess, type WorkerProcess } from './support/worker-process';

jest.setTimeout(120_000);

const TRIVY = 'scans/trivy/scb__juice-shop-v12.10.2.json';

/** Findings of a shared scanner file by severity, from the parser (not the database the answer reads). */
async function severityCounts(rel: string): Promise<{ total: number; bySeverity: Record<Severity, number> }> {
  const parsed = await parseReportFile(fs.readFileSync(corpusPath(rel)));
  const bySeverity = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number>;
  for (const f of parsed.findings) bySeverity[f.versions.at(-1)!.severity]++;
  return { total: parsed.findings.length, bySeverity };
}

/**
 * Files attached to a thread, with the real API, a real agent-worker child process running the
 * built-in planner, Postgres and Redis: the upload becomes an import job like one from the Reports
 * page, questions about "this file" are answered from its report, and the edge refuses what it
 * cannot take (over 10 MB while streaming, content no importer reads) without writing anything.
 */
describe('chat attachments', () => {
  let db: TestDatabase;
  let api: ApiInstance;
  let worker: WorkerProcess;
  let alice: LoginSession;
  let chat: EventCollector;
  let imports: Queue;
  const views = new ImportViews();
  const deployment = newDeployment();

  const http = () => request(api.app.getHttpServer());
  const newThread = async (): Promise<string> =>
    (await http().post('/api/chats').set(alice.headers).send({}).expect(201)).body.id;
  const attach = (chatId: string, bytes: Buffer, name: string, session = alice) =>
    http().post(`/api/chats/${chatId}/attachments`).set(session.headers).attach('file', bytes, name);
  const attachShared = (chatId: string, rel: string) =>
    attach(chatId, fs.readFileSync(corpusPath(rel)), path.basename(rel));
  const count = async (table: 'chat_attachments' | 'import_jobs' | 'reports'): Promise<number> =>
    (await db.dataSource.query(`SELECT count(*)::int AS n FROM ${table}`))[0].n;
  const uploadsLeft = () => {
    const dir = path.join(api.env.DATA_DIR, 'uploads');
    return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
  };
  /** Posts `content` and resolves with the stored answer and the turn's tool calls. */
  const ask = async (chatId: string, content: string) => {
    await chat.join(chatId);
    const posted = await http()
      .post(`/api/chats/${chatId}/messages`)
      .set(alice.headers)
      .send({ content })
      .expect(202);
    const done = (await chat.waitFor(posted.body.turnId, 'turn.done', 60_000)) as ChatEventOf<'turn.done'>;
    const thread = await http().get(`/api/chats/${chatId}`).set(alice.headers).expect(200);
    const answer = thread.body.messages.find((m: { id: string }) => m.id === done.messageId)
      .content as string;
    const calls = chat
      .forTurn(posted.body.turnId)
      .filter((e) => e.type === 'tool.call') as ChatEventOf<'tool.call'>[];
    return { answer, calls };
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    api = await startApiInstance({ databaseUrl: db.url, ...deployment });
    alice = await signIn(api, db.dataSource);
    chat = await openChatSocket(api, alice);
    views.listen(chat.socket);
    imports = new Queue(IMPORTS_QUEUE, {
      connection: redisOptionsFromUrl(process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379'),
      prefix: new RedisKeys(deployment.redisPrefix).bullPrefix,
    });
    worker = await spawnWorkerProcess({
      databaseUrl: db.url,
      redisPrefix: deployment.redisPrefix,
      env: { TEST_AGENT: 'builtin' },
    });
  });
  afterAll(async () => {
    chat?.close();
    await worker?.stop();
    await imports?.close();
    await api?.close();
    await db?.drop();
  });

  it('says a file is still importing, then answers from its report once it is ready, with exact counts', async () => {
    const expected = await severityCounts(TRIVY);
    expect(expected.bySeverity.critical).toBeGreaterThan(0);
    const chatId = await newThread();
    // Imports wait while the queue is paused, so the question certainly comes before the report.
    await imports.pause();
    let attached: ChatAttachmentView;
    try {
      attached = (await attachShared(chatId, TRIVY).expect(202)).body;
      expect(attached).toMatchObject({ chatId, import: { file: path.basename(TRIVY), status: 'queued' } });
      const early = await ask(chatId, 'how many criticals in it?');
      expect(early.answer).toContain('is still being imported');
      expect(early.calls).toEqual([]);
    } finally {
      await imports.resume();
    }

    const ready = await views.reached(attached.import.id, 'ready');
    expect(ready.outcome).toMatchObject({ ok: true, format: 'trivy', findingCount: expected.total });
    const reportId = ready.outcome!.ok ? ready.outcome!.reportId : -1;

    const criticals = await ask(chatId, 'how many criticals in it?');
    expect(criticals.answer).toContain(`**${expected.bySeverity.critical}**`);
    expect(criticals.answer).toContain(`report ${reportId}`);
    expect(criticals.calls.map((c) => c.args)).toEqual([
      expect.objectContaining({ severity: 'critical', reportId }),
    ]);

    const overview = await ask(chatId, "What's in this file?");
    expect(overview.answer).toContain(`${expected.total} findings in total`);
    for (const s of SEVERITIES) expect(overview.answer).toContain(`- ${s}: ${expected.bySeverity[s]}`);
    expect(overview.calls.map((c) => c.args)).toEqual([{ groupBy: 'severity', filter: { reportId } }]);

    const listed = await http().get(`/api/chats/${chatId}/attachments`).set(alice.headers).expect(200);
    expect(listed.body).toEqual([
      expect.objectContaining({ id: attached.id, import: expect.objectContaining({ status: 'ready' }) }),
    ]);
  });

  it('answers why when the attached file was not imported', async () => {
    const chatId = await newThread();
    const attached: ChatAttachmentView = (
      await attachShared(chatId, 'edge/burp__dd__dastardly-junit-not-burp-xml.xml').expect(202)
    ).body;
    const failed = await views.reached(attached.import.id, 'failed');
    const { answer, calls } = await ask(chatId, 'how many criticals in it?');
    expect(answer).toContain('was not imported');
    expect(answer).toContain('unrecognised format');
    expect(failed.error).toMatch(/^unrecognised format: .*<testsuites>/);
    // The refusal names what can be imported, as IMPORT-RULES.md names the formats.
    expect(failed.error).toContain(`Supported formats: ${SUPPORTED_IMPORT_FORMATS}`);
    expect(calls).toEqual([]);
  });

  it('refuses a file over 10 MB with 413 while it streams, keeping nothing', async () => {
    const chatId = await newThread();
    const before = { attachments: await count('chat_attachments'), imports: await count('import_jobs') };
    const big = Buffer.alloc(10 * 1024 * 1024 + 1, 'a');
    const res = await attach(chatId, big, 'big.csv').expect(413);
    expect(res.body).toMatchObject({
      error: 'TOO_LARGE',
      message: expect.stringContaining('over the 10 MB limit of chat attachments; nothing was attached'),
    });
    expect({ attachments: await count('chat_attachments'), imports: await count('import_jobs') }).toEqual(
      before,
    );
    expect(uploadsLeft()).toEqual([]);
  });

  it('refuses content no importer reads with 422 listing the supported formats, keeping nothing', async () => {
    const chatId = await newThread();
    const before = await count('import_jobs');
    const png = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]),
      Buffer.alloc(64, 1),
    ]);
    const res = await attach(chatId, png, 'screenshot.png').expect(422);
    expect(res.body.message).toContain('screenshot.png is not a report file');
    for (const f of REPORT_FORMATS) expect(res.body.message).toContain(IMPORT_FORMAT_NAMES[f]);
    expect(await count('import_jobs')).toBe(before);
    expect(uploadsLeft()).toEqual([]);
  });

  it("keeps attachments to the thread's owner and takes one off on request", async () => {
    const chatId = await newThread();
    const bob = await signIn(api, db.dataSource);
    await attachShared(chatId, 'scans/burp/dd__one_finding.xml').set(bob.headers).expect(404);
    await http().get(`/api/chats/${chatId}/attachments`).set(bob.headers).expect(404);
    expect(uploadsLeft()).toEqual([]);

    const wrongField = await http()
      .post(`/api/chats/${chatId}/attachments`)
      .set(alice.headers)
      .attach('files', Buffer.from('<issues/>'), 'a.xml')
      .expect(400);
    expect(wrongField.body.message).toContain("multipart field 'file'");

    const attached: ChatAttachmentView = (
      await attachShared(chatId, 'scans/burp/dd__one_finding.xml').expect(202)
    ).body;
    await views.reached(attached.import.id, 'ready');
    await http().delete(`/api/chats/${chatId}/attachments/${attached.id}`).set(bob.headers).expect(404);
    await http().delete(`/api/chats/${chatId}/attachments/${attached.id}`).set(alice.headers).expect(204);
    expect(
      (await http().get(`/api/chats/${chatId}/attachments`).set(alice.headers).expect(200)).body.filter(
        (a: ChatAttachmentView) => a.id === attached.id,
      ),
    ).toEqual([]);
    // The report it became stays in the shared corpus.
    const reports = (await http().get('/api/reports').set(alice.headers).expect(200)).body as {
      filename: string;
    }[];
    expect(reports.map((r) => r.filename)).toContain('dd__one_finding.xml');
  });
});
