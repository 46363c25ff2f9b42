/**
 * How an answer repeats text from the corpus or the operator: escaped for Markdown and, for the
 * operator's own words, cut to a length. Shared by the answers in every language.
 */

/**
 * Escapes text that comes from the corpus or the operator for Markdown: the ASCII punctuation that
 * could open markup mid-line (links, images, HTML tags, emphasis with `*`, code, tables, strike) is
 * backslash-escaped (CommonMark §2.4), so a title like `<script>` or `[x](javascript:…)` renders as
 * literal text. `_` is left alone: intraword underscores never start emphasis, and report file names
 * (`dd__flawfinder.sarif`) stay searchable as written. Newlines become spaces.
 */
export function md(text: string | null | undefined): string {
  return (text ?? '').replace(/[\\`*[\]()<>!|~&]/g, (c) => `\\${c}`).replace(/\r?\n/g, ' ');
}

/** How much of the operator's own words an answer repeats (characters; longer is cut with "…"). */
export const QUOTE_MAX_CHARS = 80;
/** Cuts `s` to at most `n` code points, ending in "…" when cut (never inside a surrogate pair). */
export const cut = (s: string, n: number) => {
  if (s.length <= n) return s;
  const points = Array.from(s);
  const kept = points.slice(0, n - 1).join('');
  return points.length > n ? `${kept.trimEnd()}…` : s;
};
/** The operator's words, cut to {@link QUOTE_MAX_CHARS} and escaped, for repeating them in an answer. */
export const words = (s: string) => md(cut(s, QUOTE_MAX_CHARS));
