import type { DataSource } from 'typeorm';

/** A fingerprint of everything the corpus holds (row counts and hashes of reports and finding versions), to prove nothing changed. */
export async function corpusFingerprint(ds: DataSource): Promise<Record<string, string>> {
  const [row] = await ds.query(`
    SELECT (SELECT count(*) FROM reports)::text AS reports,
           (SELECT count(*) FROM findings)::text AS findings,
           (SELECT count(*) FROM finding_versions)::text AS versions,
           (SELECT md5(coalesce(string_agg(id || filename || archived::text || status::text, ',' ORDER BY id), '')) FROM reports) AS report_hash,
           (SELECT md5(coalesce(string_agg(id || title || severity::text || coalesce(description, ''), ',' ORDER BY id), '')) FROM finding_versions) AS version_hash`);
  return row;
}
