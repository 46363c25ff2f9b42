/**
 * The web pages' Content-Security-Policy, the same for `WebStaticModule`, nginx and the dev server
 * (a spec checks the copies match): own scripts only, inline styles (Angular sets them), `ws:`/`wss:`
 * for proxies, no framing.
 */
export const APP_PAGE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "connect-src 'self' ws: wss:; frame-ancestors 'none'; base-uri 'self'; form-action 'self'";

/** Headers of every file of the web build: the CSP, and `X-Frame-Options` for browsers without `frame-ancestors`. */
export const APP_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': APP_PAGE_CSP,
  'X-Frame-Options': 'DENY',
};
