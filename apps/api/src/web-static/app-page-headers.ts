/**
 * The Content-Security-Policy of the web client's pages, the same in every deployment: the API
 * serving the build (`WebStaticModule`), nginx (`docker/nginx.conf`) and the Angular dev server
 * (`apps/web/project.json`); a spec checks the other two copies match. Scripts come only from the
 * app's own files (Angular's build has no inline script); styles may be inline because Angular
 * sets style attributes at run time; `ws:`/`wss:` let Socket.IO's WebSocket through proxies that
 * rewrite the scheme; no page may frame the app.
 */
export const APP_PAGE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "connect-src 'self' ws: wss:; frame-ancestors 'none'; base-uri 'self'; form-action 'self'";

/** Headers of every file of the web build: the CSP, and `X-Frame-Options` for browsers without `frame-ancestors`. */
export const APP_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': APP_PAGE_CSP,
  'X-Frame-Options': 'DENY',
};
