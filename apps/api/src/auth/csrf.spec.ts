import { ForbiddenException } from '@nestjs/common';
import { allowedOrigins, assertSameOriginWrite } from './csrf';
import { loadAuthEnv } from './auth.env';

describe('assertSameOriginWrite', () => {
  const prodOrigins = allowedOrigins(
    loadAuthEnv({
      NODE_ENV: 'production',
      PUBLIC_ORIGIN: 'https://chat.example.org/, https://other.example.org',
    }),
  );
  const req = (method: string, headers: Record<string, string>) => ({
    method,
    protocol: 'http',
    headers: { host: 'api.internal:3000', ...headers },
  });

  it('lets reads through without any header', () => {
    expect(() => assertSameOriginWrite(req('GET', {}), prodOrigins)).not.toThrow();
    expect(() =>
      assertSameOriginWrite(req('HEAD', { origin: 'https://evil.example' }), prodOrigins),
    ).not.toThrow();
  });

  it('requires X-Requested-With: XMLHttpRequest on every state-changing method', () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      expect(() => assertSameOriginWrite(req(method, {}), prodOrigins)).toThrow(ForbiddenException);
      expect(() => assertSameOriginWrite(req(method, { 'x-requested-with': 'fetch' }), prodOrigins)).toThrow(
        /X-Requested-With/,
      );
      expect(() =>
        assertSameOriginWrite(req(method, { 'x-requested-with': 'XMLHttpRequest' }), prodOrigins),
      ).not.toThrow();
    }
  });

  it('accepts the own origin and configured origins (case and trailing slash ignored), refuses others', () => {
    const write = (origin: string) => () =>
      assertSameOriginWrite(req('POST', { 'x-requested-with': 'XMLHttpRequest', origin }), prodOrigins);
    expect(write('http://api.internal:3000')).not.toThrow();
    expect(write('https://CHAT.example.org')).not.toThrow();
    expect(write('https://other.example.org/')).not.toThrow();
    expect(write('https://evil.example')).toThrow(
      /Cross-origin request refused: Origin https:\/\/evil.example .*PUBLIC_ORIGIN.*https:\/\/chat.example.org/,
    );
    expect(write('https://chat.example.org.evil.example')).toThrow(/Cross-origin/);
    expect(write('null')).toThrow(/Cross-origin/);
    // The dev server is only allowed outside production.
    expect(write('http://localhost:4200')).toThrow(/Cross-origin/);
    const dev = allowedOrigins(loadAuthEnv({ NODE_ENV: 'development' }));
    expect(() =>
      assertSameOriginWrite(
        req('POST', { 'x-requested-with': 'XMLHttpRequest', origin: 'http://localhost:4200' }),
        dev,
      ),
    ).not.toThrow();
  });
});
