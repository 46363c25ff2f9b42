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
