import { V } from './vocabulary';

/** The file extensions of the report formats; the lexer reads a word ending in one as a file name. */
export const REPORT_EXTENSION = String.raw`\.(?:sarif(?:\.json)?|jsonl|ndjson|json|xml|html?|csv|nessus|txt)`;

/** Lower-case alphanumeric pieces of a name: `scb__juice-shop-v12.json` → scb, juice, shop, v12, json. */
export function namePieces(name: string): string[] {
  return name
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/** The words of a hint that can name a report ("the juice shop report" → juice, shop). */
const hintWords = (hint: string) => namePieces(hint).filter((w) => !V.reportNameFiller.has(w));

/**
 * The report file names a partial name refers to, ignoring case and `_`, `-`, `.`: the name that is
 * the whole hint without its extension, else every name holding each word of the hint, or the hint
 * run together (`juiceshop`). Several matches mean the hint is ambiguous; none, that it names no report.
 */
export function matchReportNames(hint: string, filenames: readonly string[]): string[] {
  const words = hintWords(hint);
  if (!words.length) return [];
  const joined = words.join('');
  const unique = [...new Set(filenames)];
  const extension = new RegExp(`${REPORT_EXTENSION}$`, 'i');
  const exact = unique.filter((f) => namePieces(f.replace(extension, '')).join('') === joined);
  if (exact.length) return exact;
  return unique.filter(
    (f) =>
      words.every((w) => f.toLowerCase().includes(w)) ||
      (joined.length >= 3 && namePieces(f).join('').includes(joined)),
  );
}

/**
 * The scanner a hint names ("from semgrep"): the hint's words joined (the `scanner` filter's
 * substring) when a report's scanner name (`docMetadata.tool.name`) contains them, else nothing.
 */
export function matchScanners(
  hint: string,
  reports: readonly { docMetadata: Record<string, unknown> }[],
): string[] {
  const phrase = hintWords(hint).join(' ');
  const named = reports.some((r) => {
    const name = (r.docMetadata['tool'] as { name?: unknown } | null | undefined)?.name;
    return typeof name === 'string' && name.toLowerCase().includes(phrase);
  });
  return phrase && named ? [phrase] : [];
}
