import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { APP_PAGE_CSP } from './app-page-headers';
import { WebStaticModule, setWebFileHeaders } from './web-static.module';

describe('WebStaticModule.forRoot', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cc-web-static-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('serves nothing when WEB_DIST_DIR is empty', () => {
    expect(WebStaticModule.forRoot('').imports ?? []).toHaveLength(0);
  });

  it('refuses a folder without index.html, naming the variable', () => {
    expect(() => WebStaticModule.forRoot(dir)).toThrow(/WEB_DIST_DIR=.*holds no index\.html/);
  });

  it('serves a web build folder', () => {
    fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>x</title>');
    expect(WebStaticModule.forRoot(dir).imports).toHaveLength(1);
  });

  it('gives every web file the app page headers, and caches only hashed bundles for good', () => {
    const headersOf = (file: string) => {
      const h: Record<string, string> = {};
      setWebFileHeaders({ setHeader: (name, value) => (h[name] = value) }, file);
      return h;
    };
    expect(headersOf('/srv/web/index.html')).toEqual({
      'Cache-Control': 'no-cache',
      'Content-Security-Policy': APP_PAGE_CSP,
      'X-Frame-Options': 'DENY',
    });
    expect(headersOf('/srv/web/main-abc123.js')).toMatchObject({
      'Cache-Control': 'public, max-age=31536000, immutable',
      'X-Frame-Options': 'DENY',
    });
  });
});
