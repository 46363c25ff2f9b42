import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { eventually, testRunPrefix } from '@corpus-chat/persistence/testing';
import { waitForPing } from './redis-server';

/** A throw-away 3-master Redis Cluster (no replicas, no persistence) on free ports. */
export interface TestRedisCluster {
  /** `host:port,host:port,host:port`, as `REDIS_CLUSTER_NODES` takes it. */
  nodes: string;
  ports: number[];
  /** Kills the servers and removes their folder. */
  stop(): Promise<void>;
}

const run = promisify(execFile);

/**
 * Starts three `redis-server --cluster-enabled yes` in a scratch folder, joins them with
 * `redis-cli --cluster create` and resolves once every node reports `cluster_state:ok`.
 */
export async function startTestRedisCluster(): Promise<TestRedisCluster> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${testRunPrefix()}cluster-`));
  const [ports, busPorts] = await freePorts(3, 3);
  const children: ChildProcess[] = [];
  const stop = async () => {
    await Promise.all(
      children.map(async (c) => {
        if (c.exitCode !== null || c.signalCode !== null) return;
        const exited = new Promise((r) => c.once('exit', r));
        c.kill('SIGKILL');
        await exited;
      }),
    );
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const port of ports) {
      // The bus port is chosen too: the default (port + 10000) may be taken or past 65535.
      const args = ['--port', String(port), '--cluster-port', String(busPorts[ports.indexOf(port)])];
      args.push('--bind', '127.0.0.1', '--cluster-enabled', 'yes');
      args.push('--cluster-config-file', path.join(dir, `nodes-${port}.conf`), '--dir', dir);
      args.push('--save', '', '--appendonly', 'no', '--daemonize', 'no');
      children.push(spawn('redis-server', args, { stdio: 'ignore' }));
    }
    await Promise.all(ports.map((port) => waitForPing(port, 10_000)));
    await run('redis-cli', [
      '--cluster',
      'create',
      ...ports.map((p) => `127.0.0.1:${p}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ]);
    await Promise.all(ports.map((port) => waitForClusterOk(port, 30_000)));
  } catch (e) {
    await stop();
    throw e;
  }
  return { nodes: ports.map((p) => `127.0.0.1:${p}`).join(','), ports, stop };
}

/** Polls `CLUSTER INFO` on `port` until `cluster_state:ok` (the nodes agree on all 16384 slots). */
async function waitForClusterOk(port: number, ms: number): Promise<void> {
  const node = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 1 });
  node.on('error', () => undefined);
  try {
    const ok = async () => /cluster_state:ok/.test(String(await node.call('CLUSTER', 'INFO')));
    await eventually(ok, ms, `Redis Cluster node ${port}: cluster_state:ok`);
  } finally {
    node.disconnect();
  }
}

/** `counts.length` groups of distinct free ports, all held open while chosen so none repeats. */
async function freePorts(...counts: number[]): Promise<number[][]> {
  const servers = await Promise.all(
    Array.from({ length: counts.reduce((a, b) => a + b, 0) }, async () => {
      const srv = net.createServer();
      await new Promise<void>((resolve, reject) => {
        srv.once('error', reject);
        srv.listen(0, '127.0.0.1', resolve);
      });
      return srv;
    }),
  );
  const ports = servers.map((srv) => (srv.address() as net.AddressInfo).port);
  await Promise.all(servers.map((srv) => new Promise((r) => srv.close(r))));
  return counts.map((n, i) =>
    ports
      .slice(
        counts.slice(0, i).reduce((a, b) => a + b, 0),
        undefined,
      )
      .slice(0, n),
  );
}
