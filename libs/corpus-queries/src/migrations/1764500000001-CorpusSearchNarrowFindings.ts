import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Keeps `findings` narrow so exact counts over 1M findings stay fast: the copy of the current
 * version's search vector (≈ 300 bytes a row, three quarters of the table) moves out of `findings`.
 * Full-text search on current findings now goes through an expression GIN index over
 * `finding_search_vector(current_version_id)`, a function returning that version's generated
 * `search_vector`.
 *
 * The function reads `finding_versions`, yet is declared IMMUTABLE, which an index expression
 * requires. That is sound because a version row never changes: `finding_versions` is append-only
 * (enforced below by a trigger that refuses UPDATE), and `findings.current_version_id` must point at
 * an existing version when it is written (its foreign key is no longer deferrable), so the value
 * indexed for a version id is the value the function returns for it forever. The function body
 * names its schema explicitly, so it does not depend on the caller's search_path (pg_dump/restore
 * builds indexes after all table data is loaded).
 *
 * A bitmap count must visit every heap page holding a match; with the vector gone, a page of
 * `findings` holds ~4× more rows, so a count over a common term reads ~4× fewer pages.
 */
export class CorpusSearchNarrowFindings1764500000001 implements MigrationInterface {
  name = 'CorpusSearchNarrowFindings1764500000001';

  async up(q: QueryRunner): Promise<void> {
    const [{ schema }]: { schema: string }[] = await q.query(
      `SELECT quote_ident(current_schema()) AS schema`,
    );

    await q.query(`
      CREATE FUNCTION finding_search_vector(version_id integer) RETURNS tsvector
        LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE COST 100
        AS $$ SELECT search_vector FROM ${schema}.finding_versions WHERE id = version_id $$`);
    await q.query(`COMMENT ON FUNCTION finding_search_vector(integer) IS
      'search_vector of a finding version; immutable because finding_versions is append-only (see tr_finding_versions_append_only)'`);

    await q.query(`
      CREATE FUNCTION corpus_refuse_version_update() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'finding_versions is append-only: add a new version instead of updating version %', OLD.id
          USING ERRCODE = 'restrict_violation';
      END $$`);
    await q.query(`
      CREATE TRIGGER tr_finding_versions_append_only BEFORE UPDATE ON finding_versions
        FOR EACH ROW EXECUTE FUNCTION corpus_refuse_version_update()`);

    await q.query(`ALTER TABLE findings DROP CONSTRAINT fk_findings_current_version`);
    await q.query(`
      ALTER TABLE findings ADD CONSTRAINT fk_findings_current_version FOREIGN KEY (current_version_id)
        REFERENCES finding_versions (id) NOT DEFERRABLE`);

    await q.query(`DROP INDEX ix_findings_live_search`);
    await q.query(`DROP INDEX ix_findings_live_cwe`);
    await q.query(`ALTER TABLE findings DROP COLUMN search_vector`);
    // Not partial: the planner takes statistics for an index expression from non-partial indexes only.
    await q.query(
      `CREATE INDEX ix_findings_search ON findings USING gin (finding_search_vector(current_version_id))`,
    );
    await q.query(`CREATE INDEX ix_findings_cwe ON findings USING gin (cwe)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX ix_findings_search`);
    await q.query(`DROP INDEX ix_findings_cwe`);
    await q.query(`ALTER TABLE findings ADD COLUMN search_vector tsvector`);
    await q.query(
      `UPDATE findings f SET search_vector = fv.search_vector FROM finding_versions fv WHERE fv.id = f.current_version_id`,
    );
    await q.query(`ALTER TABLE findings ALTER COLUMN search_vector SET NOT NULL`);
    await q.query(
      `CREATE INDEX ix_findings_live_search ON findings USING gin (search_vector) WHERE NOT archived`,
    );
    await q.query(`CREATE INDEX ix_findings_live_cwe ON findings USING gin (cwe) WHERE NOT archived`);
    await q.query(`ALTER TABLE findings DROP CONSTRAINT fk_findings_current_version`);
    await q.query(`
      ALTER TABLE findings ADD CONSTRAINT fk_findings_current_version FOREIGN KEY (current_version_id)
        REFERENCES finding_versions (id) DEFERRABLE INITIALLY DEFERRED`);
    await q.query(`DROP TRIGGER tr_finding_versions_append_only ON finding_versions`);
    await q.query(`DROP FUNCTION corpus_refuse_version_update()`);
    await q.query(`DROP FUNCTION finding_search_vector(integer)`);
  }
}
