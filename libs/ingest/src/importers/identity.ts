import crypto from 'node:crypto';

/**
 * Building blocks of a finding's identity and a report's target, as IMPORT-RULES.md "Finding
 * identity and scan comparison" defines them: fields trimmed (absent = ''), hosts, sites and
 * target names lower-cased with one trailing `/` removed, protocols lower-cased.
 */

/** A plain identity field: trimmed text; null, undefined and non-text become ''. */
export function identityField(value: unknown): string {
  if (value === null || value === undefined) return '';
  return (typeof value === 'string' ? value : String(value)).trim();
}

/** A host, site or target name: trimmed, lower-cased, one trailing `/` removed. */
export function identityHost(value: unknown): string {
  return identityField(value).toLowerCase().replace(/\/$/, '');
}

/** A protocol (`tcp`, `udp`): trimmed and lower-cased. */
export function identityProtocol(value: unknown): string {
  return identityField(value).toLowerCase();
}

/** A report's target set: normalised names, empty ones dropped, unique and sorted; null when empty. */
export function targetSet(names: Iterable<unknown>): string[] | null {
  const set = new Set<string>();
  for (const name of names) {
    const host = identityHost(name);
    if (host) set.add(host);
  }
  return set.size ? [...set].sort() : null;
}

/** A recorded scan time as ISO 8601 UTC, or null (IMPORT-RULES "a report's recorded scan time"). */
export function scanTime(value: unknown): string | null {
  let text = identityField(value);
  if (!text) return null;
  // Fractions beyond milliseconds (Go and Trivy write nanoseconds) are not read by Date.parse.
  text = text.replace(/(\.\d{3})\d+/, '$1');
  const iso = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?/.exec(text);
  let ms: number;
  if (iso) {
    // Date.parse rolls 30 February over into March.
    const [y, m, d] = iso[0].slice(0, 10).split('-').map(Number);
    if (new Date(Date.UTC(y, m - 1, d)).getUTCMonth() !== m - 1) return null;
    const offset = /(Z|[+-]\d{2}:?\d{2})$/i.exec(text.slice(iso[0].length).trim());
    const base = iso[0].replace(' ', 'T') + (iso[1] ? '' : 'T00:00:00');
    ms = Date.parse(`${base}${offset ? offset[1].replace(/^([+-]\d{2})(\d{2})$/, '$1:$2') : 'Z'}`);
  } else {
    // Date.parse reads almost anything; only a text with a month name and a year is a date.
    if (!/\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)/i.test(text) || !/\b\d{4}\b/.test(text))
      return null;
    const offset = /\s([+-]\d{4})\b/.exec(text);
    // Zone words (CET, CEST, GMT, UTC…) are dropped; the time is then read as UTC unless an offset is given.
    const words = text.replace(
      /\b(?!(?:mon|tue|wed|thu|fri|sat|sun|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b)[A-Za-z]{2,5}\b/gi,
      ' ',
    );
    const stripped = words
      .replace(/\s[+-]\d{4}\b/, ' ')
      .replace(/\s+/g, ' ')
      .trim();
    ms = Date.parse(`${stripped} ${offset ? offset[1] : '+0000'}`);
  }
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
}

/** The earliest of several scan times (ISO 8601 UTC, as {@link scanTime} gives), or null. */
export function earliestScanTime(values: Iterable<unknown>): string | null {
  let earliest: string | null = null;
  for (const v of values) {
    const t = scanTime(v);
    if (t && (earliest === null || t < earliest)) earliest = t;
  }
  return earliest;
}

/** The stored fingerprint of an identity: hex SHA-256 of its JSON text (the list, in order). */
export function identityKey(identity: readonly string[]): string {
  return crypto.createHash('sha256').update(JSON.stringify(identity)).digest('hex');
}
