import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INestApplication } from '@nestjs/common';

/**
 * Sends a few unauthenticated message posts through the app's HTTP stack on a private loopback
 * port before the real one opens, so the first request does not compile that path (all 401).
 */
export async function warmHttpPath(app: INestApplication, requests = 20): Promise<void> {
  const server = http.createServer(app.getHttpAdapter().getInstance());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    for (let i = 0; i < requests; i++) {
      const res = await fetch(`http://127.0.0.1:${port}/api/chats/${randomUUID()}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-requested-with': 'XMLHttpRequest' },
        body: JSON.stringify({ content: 'How many findings are there?', clientMessageId: randomUUID() }),
      });
      await res.arrayBuffer();
    }
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}
