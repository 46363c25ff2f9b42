import type { EntityManager } from 'typeorm';
import type { ImportOutcome } from '@corpus-chat/contracts';

/**
 * The live (not archived) report with these bytes, if any: a file is imported once until archived.
 * With `archivedToo`, an archived one counts as well (the start-up import never brings back a
 * report an operator archived).
 */
export async function findLiveDuplicate(
  manager: EntityManager,
  contentHash: string,
  archivedToo = false,
): Promise<{ id: number; filename: string; archived: boolean } | undefined> {
  const rows: { id: number; filename: string; archived: boolean }[] = await manager.query(
    `SELECT id, filename, archived FROM reports WHERE content_hash = $1 AND ($2 OR NOT archived)
     ORDER BY archived, id LIMIT 1`,
    [contentHash, archivedToo],
  );
  return rows[0];
}

/** The refusal of a file already imported as `existing`, naming it and how to import the file again. */
export function duplicateOutcome(
  file: string,
  existing: { id: number; filename: string; archived?: boolean },
): ImportOutcome {
  return {
    ok: false,
    file,
    code: 'DUPLICATE',
    existingReportId: existing.id,
    error: existing.archived
      ? `this report was imported before as report ${existing.id} (${existing.filename}), which is archived; import it from the Reports page to bring it back`
      : `this report was already imported as report ${existing.id} (${existing.filename}); archive that one to import it again`,
  };
}
