import type { IncomingMessage, ServerResponse } from 'node:http';
import { ignoredInRequestLog, requestLogLevel } from './api-logging';

const req = (url: string) => ({ url, originalUrl: url }) as unknown as IncomingMessage;
const res = (statusCode: number) => ({ statusCode }) as ServerResponse;

describe('request log', () => {
  it('levels a request by its outcome: 5xx or a failed response error, 4xx warn, else info', () => {
    expect(requestLogLevel(req('/api/x'), res(200))).toBe('info');
    expect(requestLogLevel(req('/api/x'), res(304))).toBe('info');
    expect(requestLogLevel(req('/api/x'), res(401))).toBe('warn');
    expect(requestLogLevel(req('/api/x'), res(413))).toBe('warn');
    expect(requestLogLevel(req('/api/x'), res(503))).toBe('error');
    expect(requestLogLevel(req('/api/x'), res(200), new Error('socket hang up'))).toBe('error');
  });

  it('leaves out health probes, and the web client files only when the API serves them', () => {
    const api = ignoredInRequestLog({ WEB_DIST_DIR: '' });
    const withWeb = ignoredInRequestLog({ WEB_DIST_DIR: 'dist/web/browser' });
    for (const ignore of [api, withWeb]) {
      expect(ignore(req('/api/health'))).toBe(true);
      expect(ignore(req('/api/health/ready'))).toBe(true);
      expect(ignore(req('/api/chats'))).toBe(false);
      expect(ignore(req('/api/health?probe=1'))).toBe(true);
      expect(ignore(req('/api/healthy'))).toBe(false);
    }
    expect(api(req('/main-abc123.js'))).toBe(false);
    expect(withWeb(req('/main-abc123.js'))).toBe(true);
    expect(withWeb(req('/chat/3f1c2a6e-8d4b-4c1e-9a7f-2b5d6e8f9a01'))).toBe(true);
    expect(withWeb(req('/api'))).toBe(false);
  });
});
