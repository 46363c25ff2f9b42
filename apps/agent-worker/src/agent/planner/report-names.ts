/** Lower-case alphanumeric pieces of a name: `scb__juice-shop-v12.10.2.json` → scb, juice, shop, v12, 10, 2, json. */
export function namePieces(name: string): string[] {
  return name.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
}

const FILLER = new Set(['the', 'a', 'an', 'report', 'reports', 'scan', 'scans', 'file', 'files', 'named', 'called', 'titled', 'of', 'for', 'from', 'in', 'one']);
const EXTENSIONS = /\.(?:sarif(?:\.json)?|jsonl|ndjson|json|xml|html?|csv|nessus|txt)$/i;

/**
 * The report file names an operator's partial name refers to ("juice shop" → `scb__juice-shop-v12.10.2.json`,
 * "fortify" → `sdk__fortify-fpr-large.sarif`, "dd__flawfinder" → `dd__flawfinder.sarif`), comparing
 * names with `_`, `-`, `.` and case ignored. The best tier that matches anything wins:
 * 1. the name without its extension is the whole hint (`dd__flawfinder`);
 * 2. every word of the hint is a whole piece of the file name (`juice shop`, `owasp zap`);
 * 3. the hint, run together, occurs inside the run-together file name (`juiceshop`, `flawfind`).
 * Returns every name of that tier (several means the hint is ambiguous), or none.
 */
export function matchReportNames(hint: string, filenames: readonly string[]): string[] {
  const words = namePieces(hint).filter((w) => !FILLER.has(w));
  if (!words.length) return [];
  const joined = words.join('');
  const unique = [...new Set(filenames)];
  const tiers: ((f: string) => boolean)[] = [
    (f) => namePieces(f.replace(EXTENSIONS, '')).join('') === joined,
    (f) => {
      const pieces = new Set(namePieces(f));
      return words.every((w) => pieces.has(w));
    },
    (f) => joined.length >= 3 && namePieces(f).join('').includes(joined),
  ];
  for (const tier of tiers) {
    const hits = unique.filter(tier);
    if (hits.length) return hits;
  }
  return [];
}
