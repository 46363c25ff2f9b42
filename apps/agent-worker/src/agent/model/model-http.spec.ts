import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { ScriptedOpenAiServer, script } from '../testing/scripted-openai-server';
import { modelFetch, normaliseErrorBody } from './model-http';

describe('modelFetch (the openai client’s fetch)', () => {
  let server: ScriptedOpenAiServer;

  beforeEach(async () => {
    server = await ScriptedOpenAiServer.start();
  });
  afterEach(() => server.close());

  const post = (body: unknown, init: RequestInit = {}) =>
    modelFetch(`${server.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
      body: JSON.stringify(body),
      ...init,
    });

  it('hands a streamed answer over as an async-iterable Node stream, with status and headers', async () => {
    server.enqueue(script.text('hello world', 2));
    const res = await post({ model: 'm', stream: true });
    expect(res.status).toBe(200);
    expect(res.ok).toBe(true);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(res.body).toBeInstanceOf(Readable);
    let text = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Buffer>) text += chunk.toString('utf8');
    expect(text).toContain('"content":"hello "');
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    // The request went out as sent: method, headers and body.
    const req = server.completionRequests[0];
    expect(req.headers['authorization']).toBe('Bearer k');
    expect(req.body).toEqual({ model: 'm', stream: true });
  });

  it('answers an error status with a standard Response holding the whole body', async () => {
    server.enqueue(script.status(429, 'slow down'));
    const res = await post({ model: 'm', stream: true });
    expect(res).toBeInstanceOf(Response);
    expect(res.status).toBe(429);
    expect(res.ok).toBe(false);
    expect(await res.json()).toEqual({ error: { message: 'slow down', type: 'server_error' } });
  });

  it('answers a JSON completion with a standard Response', async () => {
    server.enqueue({ kind: 'completion', text: 'hi' });
    const res = await post({ model: 'm' });
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(
      ((await res.json()) as { choices: { message: { content: string } }[] }).choices[0].message.content,
    ).toBe('hi');
  });

  it('rejects a refused connection as fetch does: a TypeError caused by the socket error', async () => {
    const url = `${server.baseUrl}/chat/completions`;
    await server.close();
    const err = (await modelFetch(url, { method: 'POST', body: '{}' }).catch(
      (e: unknown) => e,
    )) as TypeError & { cause?: { code?: string } };
    expect(err).toBeInstanceOf(TypeError);
    expect(err.message).toBe('fetch failed');
    expect(err.cause?.code).toBe('ECONNREFUSED');
    server = await ScriptedOpenAiServer.start(); // for afterEach
  });

  it('rejects with the signal’s reason when aborted before the headers, and the server sees the connection close', async () => {
    server.enqueue({ kind: 'stream', headersDelayMs: 800, chunks: [{ text: 'late' }] });
    const controller = new AbortController();
    const pending = post({ model: 'm', stream: true }, { signal: controller.signal });
    await server.waitFor(() => server.completionRequests.length === 1);
    const reason = new Error('turn cancelled');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await server.waitFor(() => server.completionRequests[0].clientClosed === true, 2000);
  });

  it('ends a streamed body with an error when aborted mid-stream, closing the connection', async () => {
    server.enqueue({ kind: 'stream', chunks: [{ text: 'first' }], hang: true });
    const controller = new AbortController();
    const res = await post({ model: 'm', stream: true }, { signal: controller.signal });
    const reader = (res.body as unknown as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
    expect((await reader.next()).value.toString()).toContain('first');
    controller.abort();
    await expect(reader.next()).rejects.toMatchObject({ name: 'AbortError' });
    await server.waitFor(() => server.completionRequests[0].clientClosed === true, 2000);
  });

  it('rejects a status no Response can carry as a TypeError', async () => {
    server.enqueue(script.status(600));
    const err = (await post({ model: 'm' }).catch((e: unknown) => e)) as TypeError;
    expect(err).toBeInstanceOf(TypeError);
    expect(err.message).toBe('fetch failed');
  });

  describe('with a plain HTTP server', () => {
    let plain: http.Server;
    let base: string;
    const bodies: string[] = [];

    beforeAll(async () => {
      plain = http.createServer((req, res) => {
        let raw = '';
        req.on('data', (c: Buffer) => (raw += c.toString()));
        req.on('end', () => {
          bodies.push(`${req.url} ${raw}`);
          if (req.url === '/old/chat/completions') {
            res.writeHead(307, { location: 'http://outside.example:8080/v1/chat/completions' }).end();
          } else {
            // A 2xx stream of another type: written in two parts, the second 200 ms later.
            res.writeHead(200, { 'content-type': 'application/x-ndjson' });
            res.write('{"part":1}\n');
            setTimeout(() => res.end('{"part":2}\n'), 200);
          }
        });
      });
      await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      plain.closeAllConnections();
      await new Promise((resolve) => plain.close(resolve));
    });

    it.each([
      ['a string body', '{"a":1}'],
      ['a body of another kind (through fetch)', new Blob(['{"a":1}'])],
    ])('refuses a 307 redirect with %s, naming the host it pointed to', async (_, body) => {
      const res = await modelFetch(`${base}/old/chat/completions`, { method: 'POST', body });
      expect(res.status).toBe(307);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(
        /HTTP 307, a redirect to outside\.example:8080: redirects are not followed/,
      );
      expect(bodies.at(-1)).toBe('/old/chat/completions {"a":1}');
      expect(bodies.filter((b) => b.startsWith('/new'))).toEqual([]);
    });

    it('streams a 2xx body of another type as a standard Response (not read whole first)', async () => {
      const res = await modelFetch(`${base}/ndjson`, { method: 'POST', body: '{}' });
      expect(res).toBeInstanceOf(Response);
      const reader = res.body!.getReader();
      const first = await reader.read();
      expect(Buffer.from(first.value!).toString()).toBe('{"part":1}\n');
      let rest = '';
      for (let r = await reader.read(); !r.done; r = await reader.read())
        rest += Buffer.from(r.value).toString();
      expect(rest).toBe('{"part":2}\n');
    });
  });

  it('rewrites an error body to {"error":{"message"}} keeping status, headers and the other error fields', async () => {
    server.enqueue({
      kind: 'status',
      status: 400,
      body: { object: 'error', message: 'bad temperature', type: 'BadRequestError', param: null, code: 400 },
      headers: { 'x-request-id': 'r1' },
    });
    const res = await post({ model: 'm', stream: true });
    expect(res.status).toBe(400);
    expect(res.headers.get('x-request-id')).toBe('r1');
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toEqual({
      error: { message: 'bad temperature', type: 'BadRequestError', param: null, code: 400 },
    });

    server.enqueue({
      kind: 'status',
      status: 502,
      contentType: 'text/html',
      text: '<html><title>502 Bad Gateway</title><body>nginx</body></html>',
      headers: { 'retry-after': '4' },
    });
    const proxy = await post({ model: 'm', stream: true });
    expect(proxy.status).toBe(502);
    expect(proxy.headers.get('retry-after')).toBe('4');
    expect(await proxy.json()).toEqual({ error: { message: '502 Bad Gateway' } });
  });
});

describe('normaliseErrorBody', () => {
  const n = (body: unknown, status = 400) =>
    JSON.parse(normaliseErrorBody(typeof body === 'string' ? body : JSON.stringify(body), status));

  it('leaves {"error":{"message"}} (OpenAI, Ollama’s OpenAI layer, LiteLLM, llama.cpp) as it is', () => {
    const llama = {
      error: {
        code: 400,
        message: 'request (5000 tokens) exceeds the available context size (4096 tokens), try increasing it',
        type: 'exceed_context_size_error',
        n_prompt_tokens: 5000,
        n_ctx: 4096,
      },
    };
    expect(normaliseErrorBody(JSON.stringify(llama), 400)).toBe(JSON.stringify(llama));
  });

  it('puts every other shape’s words under error.message', () => {
    expect(n({ error: 'model "x" not found, try pulling it first' }, 404)).toEqual({
      error: { message: 'model "x" not found, try pulling it first' },
    });
    expect(
      n({ object: 'error', message: 'too long', type: 'BadRequestError', param: null, code: 400 }),
    ).toEqual({ error: { message: 'too long', type: 'BadRequestError', param: null, code: 400 } });
    expect(n({ detail: 'Not authenticated' }, 401)).toEqual({ error: { message: 'Not authenticated' } });
    expect(
      n(
        {
          detail: [{ loc: ['body', 'model'], msg: 'field required' }, { msg: 'extra fields not permitted' }],
        },
        422,
      ),
    ).toEqual({ error: { message: 'body.model: field required; extra fields not permitted' } });
    expect(n({ error: { code: 500, type: 'server_error' } }, 500)).toEqual({
      error: { code: 500, type: 'server_error', message: '{"code":500,"type":"server_error"}' },
    });
    expect(n({ status: 'failed' }, 500)).toEqual({ error: { message: '{"status":"failed"}' } });
    expect(n('Internal Server Error\n', 500)).toEqual({ error: { message: 'Internal Server Error' } });
    expect(n('<html><body><h1>403 Forbidden</h1><script>x()</script></body></html>', 403)).toEqual({
      error: { message: '403 Forbidden' },
    });
    expect(n('', 503)).toEqual({ error: { message: 'HTTP 503 without a message' } });
    expect(n('x'.repeat(5000), 500).error.message).toHaveLength(1001);
  });
});
