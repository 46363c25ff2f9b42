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
 * Serves the web build (`WEB_DIST_DIR`) on the API's origin, so one process is the whole product.
 * Unknown paths outside `/api`, `/mcp`, `/socket.io` get `index.html`; every file carries
 * `APP_PAGE_HEADERS`. Empty `WEB_DIST_DIR`: nothing is served.
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
