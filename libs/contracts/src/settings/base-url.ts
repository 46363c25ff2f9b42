// No zod here: the web client imports these at runtime (see browser.ts).

/**
 * `url` in one spelling per server, to compare two base URLs (the stored key goes only to the base
 * URL it was saved with): lower-case scheme and host, no default port, no trailing slashes, no
 * fragment (`HTTP://Models.LAN:80/v1/` → `http://models.lan/v1`). Text that is not a URL is only
 * trimmed of spaces and trailing slashes.
 */
export function normalizeBaseUrl(url: string): string {
  const text = url.trim();
  try {
    const u = new URL(text);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}${u.search}`;
  } catch {
    return text.replace(/\/+$/, '');
  }
}

/** Whether two base URLs name the same server (`null`: none stored, never the same). */
export function sameBaseUrl(a: string | null | undefined, b: string | null | undefined): boolean {
  return !!a && !!b && normalizeBaseUrl(a) === normalizeBaseUrl(b);
}
