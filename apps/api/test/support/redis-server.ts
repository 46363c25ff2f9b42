import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import { Redis } from 'ioredis';

/** A throw-away `redis-server` (no persistence) on a port of its own, for outage tests. */
export interface TestRedisServer {
  url: string;
  port: number;
  /** Kills it (SIGKILL: an outage, not a clean shutdown). */
  stop(): Promise<void>;
  /** Starts it again on the same port (empty, as after a crash without persistence). */
  start(): Promise<void>;
  /** SIGSTOP: it keeps accepting connections (the kernel does) but answers nothing: a hung Redis. */
  pause(): void;
  /** SIGCONT after `pause`: it answers again, commands that waited first. */
  resume(): void;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Resolves once the Redis on `port` answers PING; rejects after `ms`. */
export async function waitForPing(port: number, ms: number): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    const probe = new Redis({
      port,
      host: '127.0.0.1',
      lazyConnect: true,
      retryStrategy: () => null,
      maxRetriesPerRequest: 0,
    });
    probe.on('error', () => undefined);
    try {
      await probe.connect();
      await probe.ping();
      return;
    } catch (e) {
      if (Date.now() > until)
        throw new Error(`redis-server on ${port} did not answer: ${(e as Error).message}`);
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      probe.disconnect();
    }
  }
}

/** Starts `redis-server --port N --save '' --appendonly no` as a child process and waits for PING. */
export async function startTestRedisServer(): Promise<TestRedisServer> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  const server: TestRedisServer = {
    url: `redis://127.0.0.1:${port}`,
    port,
    async start() {
      child = spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--save',
          '',
          '--appendonly',
          'no',
          '--daemonize',
          'no',
        ],
        {
          stdio: 'ignore',
        },
      );
      await waitForPing(port, 5000);
    },
    pause() {
      child?.kill('SIGSTOP');
    },
    resume() {
      child?.kill('SIGCONT');
    },
    async stop() {
      const c = child;
      c?.kill('SIGCONT'); // a stopped process handles SIGKILL anyway; this keeps `exit` prompt
      child = null;
      if (!c || c.exitCode !== null || c.signalCode !== null) return;
      const exited = new Promise((r) => c.once('exit', r));
      c.kill('SIGKILL');
      await exited;
    },
  };
  await server.start();
  return server;
}
