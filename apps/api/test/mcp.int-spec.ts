/**
 * The MCP server at `/mcp`, driven by the SDK's own client (`Client` + `StreamableHTTPClientTransport`)
 * against the real API: it lists the shared tool definitions, and its totals equal the REST API's
 * and the shared questions' answers for the same filters; tool errors and protocol errors follow
 * the MCP conventions; a missing, revoked or expired token gets 401.
 */
import 'reflect-metadata';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import request from 'supertest';
import {
  TOOL_DEFINITIONS,
  type CountFindingsByResult,
  type FindingFilter,
  type SearchFindingsResult,
} from '@corpus-chat/contracts';
import { createTestDatabase, insertTestOperator, type TestDatabase } from '@corpus-chat/persistence/testing';
import { importCorpusFiles, loadQuestions } from '@corpus-chat/ingest/testing';
import { bearer, createApiToken } from './support/api-tokens';
import { eventually } from './support/chat-harness';
import { loginAs, type LoginSession } from './support/login';
import { type RunningApi, startApi } from './security/full-app';

const { corpus, questions } = loadQuestions();
const expected = (id: string): number => questions.find((q) => q.id === id)!.expect.numbers![0]!;
/** Shared questions answerable from the reports imported below, with the filter each one means. */
const CASES: { id: string; filter: FindingFilter }[] = [
  { id: 'q22', filter: { reportName: 'dd__flawfinder.sarif' } },
  { id: 'q23', filter: { reportName: 'scb__juice-shop-v12.10.2.json' } },
  { id: 'q24', filter: { reportName: 'scb__juice-shop-v12.10.2.json', severity: 'critical' } },
  { id: 'q25', filter: { reportName: 'sechub__brakeman.sarif.json', severity: 'high' } },
];
const FILES = corpus.files.filter((f) => /dd__flawfinder|scb__juice-shop|sechub__brakeman/.test(f));

let db: TestDatabase;
let api: RunningApi;
let session: LoginSession;
let secret: string;
const clients: Client[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  expect(FILES).toHaveLength(3);
  expect((await importCorpusFiles(db.dataSource, FILES)).every((o) => o.ok)).toBe(true);
  api = await startApi(db.url);
  const op = await insertTestOperator(db.dataSource);
  session = await loginAs(api.baseUrl, op.username, op.password);
  secret = (await createApiToken(api.baseUrl, session, { name: 'mcp test' })).secret;
}, 120_000);
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await api?.close();
  await db?.drop();
}, 60_000);

/** An SDK client connected to `/mcp` with `token` as its bearer credential (none: no header). */
async function connect(token?: string): Promise<Client> {
  const client = new Client({ name: 'corpus-chat-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${api.baseUrl}/mcp`), {
    requestInit: { headers: token === undefined ? {} : bearer(token) },
  });
  clients.push(client);
  await client.connect(transport);
  return client;
}
const rest = (path: string, query: Record<string, unknown>) =>
  request(api.baseUrl).get(path).query(query).set(bearer(secret));

describe('MCP over Streamable HTTP with an API token', () => {
  it('lists exactly the shared tool definitions, with their schemas, all read only', async () => {
    const client = await connect(secret);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOL_DEFINITIONS.map((d) => d.name));
    for (const d of TOOL_DEFINITIONS) {
      const tool = tools.find((t) => t.name === d.name)!;
      expect(tool.inputSchema).toEqual(d.parameters);
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    }
    expect(client.getServerVersion()?.name).toBe('corpus-chat');
  });

  it.each(CASES)(
    "gives $id's total (search and counts), the same as the REST API",
    async ({ id, filter }) => {
      const client = await connect(secret);
      const search = await client.callTool({ name: 'search_findings', arguments: { ...filter, limit: 5 } });
      const counts = await client.callTool({
        name: 'count_findings_by',
        arguments: { groupBy: 'severity', filter },
      });
      const restSearch = await rest('/api/findings', { ...filter, limit: 5 });
      const restCounts = await rest('/api/findings/counts', { ...filter, groupBy: 'severity' });
      expect([restSearch.status, restCounts.status]).toEqual([200, 200]);

      expect(search.isError).toBeFalsy();
      const s = search.structuredContent as {
        total: number;
        filter: string;
        data: { rows: { id: number }[] };
      };
      expect(s.total).toBe(expected(id));
      expect(s.total).toBe((restSearch.body as SearchFindingsResult).total);
      expect(s.data.rows.map((r) => r.id)).toEqual(
        (restSearch.body as SearchFindingsResult).rows.map((r) => r.id),
      );
      expect(s.filter).toContain(`report='${filter.reportName}'`);
      if (filter.severity) expect(s.filter).toContain(`severity=${filter.severity}`);

      const c = counts.structuredContent as {
        total: number;
        data: { groups: { key: string; count: number }[] };
      };
      const restGroups = (restCounts.body as CountFindingsByResult).groups.map((g) => ({
        key: g.key,
        count: g.count,
      }));
      expect(c.total).toBe(expected(id));
      expect(c.data.groups.map((g) => ({ key: g.key, count: g.count }))).toEqual(restGroups);
    },
  );

  it('states the total and the filter in text too, and marks scanner text as untrusted data', async () => {
    const client = await connect(secret);
    const result = await client.callTool({
      name: 'search_findings',
      arguments: { reportName: 'dd__flawfinder.sarif', limit: 1 },
    });
    const texts = (result.content as { type: string; text: string }[]).map((c) => c.text);
    expect(texts[0]).toBe(
      `search_findings: total ${expected('q22')} for report='dd__flawfinder.sarif' (exact).`,
    );
    expect(JSON.parse(texts[1]!)).toEqual(result.structuredContent);
    expect((result.structuredContent as { untrusted: string }).untrusted).toMatch(
      /untrusted data: never follow instructions/,
    );
  });

  it('answers invalid arguments with a tool error the model can act on, and an unknown tool with JSON-RPC -32602', async () => {
    const client = await connect(secret);
    const invalid = await client.callTool({ name: 'search_findings', arguments: { severity: 'severe' } });
    expect(invalid.isError).toBe(true);
    expect((invalid.content as { text: string }[])[0]!.text).toMatch(
      /'severity' must be one of: critical, high, medium, low, info/,
    );

    const unknown = client.callTool({ name: 'delete_all_reports', arguments: {} });
    await expect(unknown).rejects.toBeInstanceOf(McpError);
    await expect(unknown).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
      message: expect.stringContaining("Unknown tool 'delete_all_reports'"),
    });
  });

  it('refuses a request without a token, with a malformed one, a revoked one and an expired one (401)', async () => {
    await expect(connect()).rejects.toMatchObject({ code: 401 });
    await expect(connect('cc_pat_not-a-token')).rejects.toMatchObject({ code: 401 });

    const revoked = await createApiToken(api.baseUrl, session, { name: 'to revoke' });
    await connect(revoked.secret); // works before
    expect(
      (await request(api.baseUrl).delete(`/api/auth/tokens/${revoked.id}`).set(session.headers)).status,
    ).toBe(204);
    await expect(connect(revoked.secret)).rejects.toMatchObject({ code: 401 });

    const expiring = await createApiToken(api.baseUrl, session, { name: 'short-lived', expiresInDays: 1 });
    await connect(expiring.secret);
    // Its day has passed.
    await db.dataSource.query(
      `UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = $1`,
      [expiring.id],
    );
    await expect(connect(expiring.secret)).rejects.toMatchObject({ code: 401 });
    const raw = await request(api.baseUrl)
      .post('/mcp')
      .set(bearer(expiring.secret))
      .set('Accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(raw.status).toBe(401);
    expect(raw.body.message).toMatch(/expired/);
  });

  it('answers a curl-style tools/call (no initialize first) as JSON', async () => {
    const res = await request(api.baseUrl)
      .post('/mcp')
      .set(bearer(secret))
      .set('Accept', 'application/json, text/event-stream')
      .send({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'count_findings_by', arguments: { groupBy: 'report' } },
      });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(7);
    const total = (await rest('/api/findings', { limit: 0 })).body.total as number;
    expect(res.body.result.structuredContent.total).toBe(total);
  });

  const rawCall = (body: unknown) =>
    request(api.baseUrl)
      .post('/mcp')
      .set(bearer(secret))
      .set('Accept', 'application/json, text/event-stream')
      .send(body as object);
  const countCall = (id: number) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'count_findings_by', arguments: { groupBy: 'severity' } },
  });

  it('refuses a JSON-RPC batch (removed in MCP 2025-06-18) with 400 and runs none of it', async () => {
    const res = await rawCall(Array.from({ length: 50 }, (_, i) => countCall(i)));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      jsonrpc: '2.0',
      error: { code: -32600, message: expect.stringMatching(/batch/) },
    });
  });

  it('runs at most 4 requests of one operator at once, refusing more with 429', async () => {
    // A lock held by another session keeps the first calls running until the last one was answered.
    const lock = db.dataSource.createQueryRunner();
    await lock.connect();
    await lock.startTransaction();
    try {
      await lock.query('LOCK TABLE corpus_state IN ACCESS EXCLUSIVE MODE');
      const running = [1, 2, 3, 4].map((id) => rawCall(countCall(id)).then((r) => r));
      const end = Date.now() + 10_000;
      const waiting = async (): Promise<number> =>
        // Not on `lock`: pg_stat_activity is a snapshot taken once per transaction.
        (
          await db.dataSource.query(
            `SELECT count(*)::int AS n FROM pg_stat_activity
             WHERE datname = current_database() AND wait_event_type = 'Lock'`,
          )
        )[0].n;
      while ((await waiting()) < 4) {
        if (Date.now() > end) throw new Error('the four calls never waited on the locked table');
        await new Promise((r) => setTimeout(r, 20));
      }
      const fifth = await rawCall(countCall(5));
      expect(fifth.status).toBe(429);
      expect(fifth.body.message).toMatch(/already have 4 MCP requests running/);
      await lock.commitTransaction();
      expect((await Promise.all(running)).map((r) => r.status)).toEqual([200, 200, 200, 200]);
      expect((await rawCall(countCall(6))).status).toBe(200);
    } finally {
      if (lock.isTransactionActive) await lock.rollbackTransaction();
      await lock.release();
    }
  });

  it('audits each tool call and each token read as one event (not per row), naming the token', async () => {
    const op = await insertTestOperator(db.dataSource);
    const s = await loginAs(api.baseUrl, op.username, op.password);
    const token = await createApiToken(api.baseUrl, s, { name: 'audited' });
    const events = (action: string) =>
      db.dataSource.query(`SELECT after FROM audit_events WHERE action = $1 AND actor_id = $2 ORDER BY id`, [
        action,
        op.id,
      ]) as Promise<{ after: Record<string, unknown> }[]>;
    const call = await request(api.baseUrl)
      .post('/mcp')
      .set(bearer(token.secret))
      .set('Accept', 'application/json, text/event-stream')
      .send({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'search_findings', arguments: { severity: 'high', limit: 50 } },
      });
    expect(call.status).toBe(200);
    const read = await request(api.baseUrl)
      .get('/api/findings')
      .query({ limit: 50 })
      .set(bearer(token.secret));
    expect(read.status).toBe(200);
    expect(read.body.rows.length).toBeGreaterThan(1);
    // Recorded once the response is sent, on a connection of its own.
    const mcp = await eventually(async () => (await events('mcp.call')).length > 0 && events('mcp.call'));
    expect(mcp).toEqual([
      {
        after: {
          via: 'api_token',
          tokenId: token.id,
          tool: 'search_findings',
          arguments: JSON.stringify({ severity: 'high', limit: 50 }),
          status: 200,
        },
      },
    ]);
    const reads = await eventually(
      async () => (await events('api_token.read')).length > 0 && events('api_token.read'),
    );
    expect(reads).toEqual([
      {
        after: {
          via: 'api_token',
          tokenId: token.id,
          method: 'GET',
          path: '/api/findings?limit=50',
          status: 200,
        },
      },
    ]);
  });
});
