import type { APIConnectionError } from 'openai';

/** Node/undici error codes of a failed connection, in words (the code stays in brackets for searching). */
const CONNECTION_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'connection refused: nothing listens on that port',
  ENOTFOUND: 'the host name was not found',
  EAI_AGAIN: 'the host name could not be looked up (DNS failure)',
  ECONNRESET: 'the server reset the connection',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  ETIMEDOUT: 'the connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
  UND_ERR_SOCKET: 'the connection closed unexpectedly',
  EPROTO: 'the TLS handshake failed (is it an http:// server?)',
  ERR_SSL_WRONG_VERSION_NUMBER: 'the TLS handshake failed (is it an http:// server?)',
  DEPTH_ZERO_SELF_SIGNED_CERT: "the server's TLS certificate is self-signed",
  SELF_SIGNED_CERT_IN_CHAIN: "the server's TLS certificate is not trusted (self-signed chain)",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the server's TLS certificate is not trusted",
  CERT_HAS_EXPIRED: "the server's TLS certificate has expired",
  ERR_TLS_CERT_ALTNAME_INVALID: "the server's TLS certificate is for another host name",
};

type ErrorCause = { cause?: ErrorCause; code?: string; message?: string };

const causesOf = (e: unknown): ErrorCause[] => {
  const causes: ErrorCause[] = [];
  for (let c = (e as ErrorCause).cause; c && causes.length < 4; c = c.cause) causes.push(c);
  return causes;
};

/** The socket's error code in the cause chain of a failed request (`ECONNREFUSED`, `ENOTFOUND`…), if any. */
export function connectionErrorCode(e: unknown): string | undefined {
  return causesOf(e).find((c) => typeof c.code === 'string')?.code;
}

/**
 * Why a connection to `baseUrl` failed, in words, from the cause chain of the OpenAI client's
 * `APIConnectionError`; shared by "Test connection" and turn errors so both read the same.
 */
export function connectionFailure(e: APIConnectionError, baseUrl: string | undefined): string {
  const causes = causesOf(e);
  const code = connectionErrorCode(e);
  const messages = causes.map((c) => c.message).filter((m): m is string => !!m);
  // The deepest message is the socket's own ("fetch failed" wraps it).
  const message = messages.at(-1);
  let why: string;
  if (code && CONNECTION_ERRORS[code]) why = `${CONNECTION_ERRORS[code]} (${code})`;
  else if (messages.includes('bad port')) {
    // The WHATWG fetch standard blocks ports of other protocols (e.g. 9, 25, 6000) on every request.
    const port = baseUrl ? URL.parse(baseUrl)?.port : '';
    why = `port ${port || 'in the URL'} is blocked for HTTP requests (the fetch standard reserves it for another protocol): use another port`;
  } else why = code ?? message ?? 'the connection failed';
  return `could not connect${baseUrl ? ` to ${baseUrl}` : ''}: ${why}`;
}

/** A model server's HTTP error as status and fixed phrase; its body is foreign text, never repeated. */
export function httpFailure(status: number | undefined): string {
  const phrase =
    status === 401
      ? 'the API key was refused'
      : status === 403
        ? 'access denied'
        : status === 404
          ? 'not found: check the base URL and the model name'
          : status === 408 || status === 504
            ? 'the server timed out'
            : status === 413
              ? 'the request was too large'
              : status === 429
                ? 'too many requests: the server is rate limiting'
                : status !== undefined && status >= 500
                  ? 'the server failed'
                  : 'the server refused the request';
  return `HTTP ${status ?? 'error'} (${phrase})`;
}
