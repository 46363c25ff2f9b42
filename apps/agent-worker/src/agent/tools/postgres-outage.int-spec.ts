/**
 * Postgres out of reach during a turn's tool query (issue 33): the query is tried again until the
 * database answers, and the answer then holds the exact number; when it stays away past the
 * turn's limit the turn fails, never answering without its data. The runner reaches Postgres
 * through a TCP proxy the test cuts (connections dropped, new ones closed at once).
 */
import 'reflect-metadata';
import type { DataSource } from 'typeorm';
import { createDataSource } from '@corpus-chat/persistence';
import { searchFindings } from '@corpus-chat/corpus-queries';
import {
  createTestDatabase,
  startTcpProxy,
  type TcpProxy,
  type TestDatabase,
} from '@corpus-chat/persistence/testing';
import { importCorpusFiles } from '@corpus-chat/ingest/testing';
import type { AgentRunner } from '@corpus-chat/server-core';
import { agentConfig } from '../agent.config';
import { startAgentRunner } from '../testing/agent-runner';
import { numbersIn, TestThread } from '../testing/turn-harness';

jest.setTimeout(60_000);

let db: TestDatabase;
let proxy: TcpProxy;
let viaProxy: DataSource;
let runner: AgentRunner;

beforeAll(async () => {
  db = await createTestDatabase();
  await importCorpusFiles(db.dataSource, ['scans/sarif/dd__flawfinder.sarif']);
  const u = new URL(db.url);
  proxy = await startTcpProxy({ host: u.hostname, port: Number(u.port || 5432) });
  viaProxy = await createDataSource(proxy.url(db.url)).initialize();
  // The settings row is read once and kept, so only the tool query meets the outage.
  runner = await startAgentRunner(viaProxy, agentConfig({ settingsCacheMs: 600_000 }));
  await new TestThread(runner).ask('How many reports do we have?');
}, 60_000);
afterAll(async () => {
  proxy?.restore();
  await viaProxy?.destroy();
  await proxy?.close();
  await db?.drop();
});

it('retries the tool query while Postgres is away, then answers with the exact number', async () => {
  proxy.cut();
  const asked = new TestThread(runner).ask('How many high severity findings are there?');
  // Restored once the runner has tried (and been refused) twice: proof that it retries.
  await proxy.refusedAtLeast(2, 10_000);
  proxy.restore();
  const turn = await asked;
  const high = (await searchFindings(db.dataSource.manager, { severity: 'high' })).total;
  expect(numbersIn(turn.outcome.content)).toContain(high);
  expect(turn.outcome.metadata.toolCalls?.every((c) => c.ok)).toBe(true);
});

it('still away when the turn runs out of time: the turn fails, with no answer', async () => {
  proxy.cut();
  try {
    await expect(
      new TestThread(runner).ask('How many critical findings are there?', {
        signal: AbortSignal.timeout(2000),
      }),
    ).rejects.toBeDefined();
    expect(proxy.refused).toBeGreaterThan(1);
  } finally {
    proxy.restore();
  }
});
