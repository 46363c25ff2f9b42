import { type DynamicModule, Module } from '@nestjs/common';
import { ServeStaticModule } from '@nestjs/serve-static';
import fs from 'node:fs';
import path from 'node:path';
import { APP_PAGE_HEADERS } from './app-page-headers';

/** Response headers of a file of the web build (`file` is its absolute path). */
export function setWebFileHeaders(res: { setHeader(name: string, value: string): void }, file: string): void {
  // Hashed bundles may be cached for good; index.html must always be revalidated.
  res.setHeader(
    'Cache-Control',
    file.endsWith('index.html') ? 'no-cache' : 'public, max-age=31536000, immutable',
  );
  // Set here rather than left to the API's helmet defaults: the app page gets its own policy and DENY.
  for (const [name, value] of Object.entries(APP_PAGE_HEADERS)) res.setHeader(name, value);
}

/**
 * Serves a production build of the web client (`WEB_DIST_DIR`, e.g. `dist/web/browser`) on the
 * API's own origin, so one process is the whole product (single-box deployments, the browser
 * end-to-end tests) and the cookie session and Socket.IO need no proxy. Unknown paths outside
 * `/api`, `/mcp` and `/socket.io` answer the app's `index.html` (client-side routes such as `/chat/<id>`);
 * `/api/*` is never shadowed (an unknown API route stays a JSON 404). Empty `WEB_DIST_DIR`: nothing
 * is served (in development the Angular dev server proxies `/api` here instead). Every file carries
 * the app page's CSP and `X-Frame-Options: DENY` (`APP_PAGE_HEADERS`).
 */
@Module({})
export class WebStaticModule {
  /** @throws Error when `webDistDir` is set but holds no `index.html` (a wrong path fails at start). */
  static forRoot(webDistDir: string): DynamicModule {
    if (!webDistDir) return { module: WebStaticModule };
    const rootPath = path.resolve(webDistDir);
    if (!fs.existsSync(path.join(rootPath, 'index.html'))) {
      throw new Error(
        `WEB_DIST_DIR=${webDistDir} holds no index.html: build the web app (npx nx run web:build) or unset WEB_DIST_DIR.`,
      );
    }
    return {
      module: WebStaticModule,
      imports: [
        ServeStaticModule.forRoot({
          rootPath,
          exclude: ['/api/{*path}', '/socket.io/{*path}', '/mcp'],
          // Applies to the files served and to the index.html answered for client-side routes.
          serveStaticOptions: { setHeaders: setWebFileHeaders },
        }),
      ],
    };
  }
}
