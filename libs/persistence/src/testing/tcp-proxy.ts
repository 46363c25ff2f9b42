import net from 'node:net';

/**
 * A TCP proxy in front of a server (Postgres) that a test can cut and restore, so one process's
 * connections fail without stopping the server other tests use.
 */
export interface TcpProxy {
  port: number;
  /** Connections refused (accepted, then closed at once) while cut: each is a try of the client. */
  readonly refused: number;
  /** `url` with its host and port replaced by the proxy's. */
  url(url: string): string;
  /** Drops every open connection; new ones are closed at once until `restore`. */
  cut(): void;
  restore(): void;
  /** Resolves once `count` connections were refused; rejects after `ms` naming what it waited for. */
  refusedAtLeast(count: number, ms: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts a proxy on a free port of 127.0.0.1 to `target`. */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const open = new Set<net.Socket>();
  let down = false;
  let refused = 0;
  const waiters = new Set<() => void>();
  const server = net.createServer((client) => {
    if (down) {
      refused++;
      client.destroy();
      for (const check of [...waiters]) check();
      return;
    }
    const upstream = net.connect(target.port, target.host);
    for (const s of [client, upstream]) {
      open.add(s);
      s.on('close', () => open.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    get refused() {
      return refused;
    },
    url(url) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    cut() {
      down = true;
      for (const s of open) s.destroy();
    },
    restore() {
      down = false;
    },
    refusedAtLeast(count, ms) {
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`the proxy refused ${refused} connection(s), not ${count}, within ${ms} ms`));
        }, ms);
        const check = () => {
          if (refused < count) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
      });
    },
    async close() {
      for (const s of open) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}
