import { V } from './vocabulary';
/** Lower-case alphanumeric pieces of a name: `scb__juice-shop-v12.10.2.json` → scb, juice, shop, v12, 10, 2, json. */
export function namePieces(name: string): string[] {
  return name
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

const EXTENSIONS = /\.(?:sarif(?:\.json)?|jsonl|ndjson|json|xml|html?|csv|nessus|txt)$/i;

/**
 * The report file names an operator's partial name refers to ("juice shop" → `scb__juice-shop-v12.10.2.json`,
 * "fortify" → `sdk__fortify-fpr-large.sarif`, "dd__flawfinder" → `dd__flawfinder.sarif`), comparing
 * names with `_`, `-`, `.` and case ignored. A name that is the whole hint without its extension
 * (`dd__flawfinder`) is the only match; otherwise every name matches where each word of the hint
 * occurs in the name, case-insensitively (IMPORT-RULES.md: "the coverity report"), or the hint run
 * together occurs in the run-together name (`juiceshop`). Several matches mean
 * the hint is ambiguous; none, that it names no report.
 */
export function matchReportNames(hint: string, filenames: readonly string[]): string[] {
  const words = namePieces(hint).filter((w) => !V.reportNameFiller.has(w));
  if (!words.length) return [];
  const joined = words.join('');
  const unique = [...new Set(filenames)];
  // An exact name (without extension) is unambiguous; otherwise every name the words fit is a candidate.
  const exact = unique.filter((f) => namePieces(f.replace(EXTENSIONS, '')).join('') === joined);
  if (exact.length) return exact;
  return unique.filter((f) => {
    const name = f.toLowerCase();
    const pieces = namePieces(f);
    return words.every((w) => name.includes(w)) || (joined.length >= 3 && pieces.join('').includes(joined));
  });
}

/**
 * The scanner a hint names ("from semgrep", "by gosec"): the distinct scanner names
 * (`docMetadata.tool.name`, e.g. SARIF `tool.driver.name`) of `reports` that contain every word of
 * the hint, case-insensitively. Returns the hint's words joined (the `scanner` filter's substring)
 * when at least one report's scanner matches, else nothing.
 */
export function matchScanners(
  hint: string,
  reports: readonly { docMetadata: Record<string, unknown> }[],
): string[] {
  const words = namePieces(hint).filter((w) => !V.reportNameFiller.has(w));
  if (!words.length) return [];
  const phrase = words.join(' ');
  const names = reports
    .map((r) => (r.docMetadata['tool'] as { name?: unknown } | null | undefined)?.name)
    .filter((n): n is string => typeof n === 'string');
  return names.some((n) => n.toLowerCase().includes(phrase)) ? [phrase] : [];
}
