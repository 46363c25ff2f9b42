/**
 * Text and JSON as Postgres stores them: NUL (refused by `text` and `jsonb`) and lone surrogates
 * (refused by `jsonb`) become U+FFFD, or a turn whose answer holds one could never end.
 */

/** `s` with every NUL replaced by U+FFFD (returned as is when it has none). */
export function storableText(s: string): string {
  return s.includes('\u0000') ? s.replaceAll('\u0000', '\ufffd') : s;
}

/**
 * `JSON.stringify(value)` for a `jsonb` parameter: the escapes jsonb refuses — `\u0000`, and a
 * lone surrogate, which `JSON.stringify` writes as a `\udXXX` escape (ES2019) while it writes
 * paired ones as characters — become `\ufffd`. An escaped backslash before `u` is left alone.
 */
export function storableJson(value: unknown): string {
  const json = JSON.stringify(value);
  return json.includes('\\u')
    ? json.replace(/(?<!\\)((?:\\\\)*)\\u(?:0000|d[89a-f][0-9a-f]{2})/gi, '$1\\ufffd')
    : json;
}
