const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** ctime-like: `Mon Jul  1 11:33:11 2013` (Nessus HOST_START), `Wed Jan 27 22:43:35 WIB 2021` (Burp exportTime). */
const CTIME =
  /^(?:[a-z]{3},?\s+)?([a-z]{3})[a-z]*\s+(\d{1,2})\s+(\d{1,2}):(\d{2}):(\d{2})(?:\s+[a-z][a-z0-9+:-]*)?\s+(\d{4})$/i;
/** ISO 8601 date and time, with an optional fraction and an optional `Z` or `±hh:mm` offset. */
const ISO = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i;

function utc(year: number, month: number, day: number, h: number, m: number, s: number, ms = 0): Date | null {
  const d = new Date(Date.UTC(year, month, day, h, m, s, ms));
  return d.getUTCDate() === day && d.getUTCMonth() === month ? d : null;
}

/**
 * A recorded scan time as ISO 8601 in UTC (IMPORT-RULES "a report's recorded scan time"): a time
 * with a UTC offset is converted to UTC; a zone word (`CEST`, `WIB`) is ignored, so such a time and
 * one without any zone are read as UTC. Accepts ISO 8601 and the ctime-like form of Burp's
 * `exportTime` and Nessus' `HOST_START`. Null for anything else.
 */
export function scanTime(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const text = value.trim();
  const c = CTIME.exec(text);
  if (c) {
    const month = MONTHS.indexOf(c[1].toLowerCase());
    if (month < 0) return null;
    return (
      utc(Number(c[6]), month, Number(c[2]), Number(c[3]), Number(c[4]), Number(c[5]))?.toISOString() ?? null
    );
  }
  const i = ISO.exec(text);
  if (!i) return null;
  const ms = i[7] ? Math.floor(Number(`0.${i[7]}`) * 1000) : 0;
  const local = utc(
    Number(i[1]),
    Number(i[2]) - 1,
    Number(i[3]),
    Number(i[4]),
    Number(i[5]),
    Number(i[6] ?? 0),
    ms,
  );
  if (!local) return null;
  const zone = i[8];
  if (!zone || zone.toUpperCase() === 'Z') return local.toISOString();
  const sign = zone[0] === '-' ? -1 : 1;
  const [hh, mm] = [Number(zone.slice(1, 3)), Number(zone.slice(-2))];
  return new Date(local.getTime() - sign * (hh * 60 + mm) * 60_000).toISOString();
}

/** The earliest of several scan times (ISO strings compare in time order), or null. */
export function earliestScanTime(values: Iterable<unknown>): string | null {
  let earliest: string | null = null;
  for (const v of values) {
    const t = scanTime(v);
    if (t && (earliest === null || t < earliest)) earliest = t;
  }
  return earliest;
}
