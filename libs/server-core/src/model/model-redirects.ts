/** Redirect statuses, which `fetch` follows unless told otherwise. */
export const REDIRECT_STATUS: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/**
 * What a model request gets instead of following a redirect (the allowlist checks only the base
 * URL), in the `openai` SDK's error shape.
 */
export function redirectRefused(status: number, location: string | null): Response {
  const where = location ? URL.parse(location)?.host || location.slice(0, 200) : '(no Location header)';
  const message = `The model server answered HTTP ${status}, a redirect to ${where}: redirects are not followed. Set the base URL to the address it redirects to (MODEL_URL_ALLOWLIST must allow it).`;
  return new Response(JSON.stringify({ error: { message } }), {
    status,
    headers: { 'content-type': 'application/json' },
  });
}

/** `fetch` for model requests that never follows a redirect (see `redirectRefused`). */
export function fetchWithoutRedirects(base: typeof fetch = fetch): typeof fetch {
  return (async (input: string | URL | Request, init: RequestInit = {}) => {
    const res = await base(input, { ...init, redirect: 'manual' });
    if (!REDIRECT_STATUS.has(res.status)) return res;
    await res.body?.cancel().catch(() => undefined);
    return redirectRefused(res.status, res.headers.get('location'));
  }) as typeof fetch;
}
