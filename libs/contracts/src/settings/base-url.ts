// No zod here: the web client imports these at runtime (see browser.ts).

/**
 * One spelling per server, to compare base URLs (a stored key goes only to its own):
 * `HTTP://Models.LAN:80/v1/` → `http://models.lan/v1`. Non-URL text is only trimmed.
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
