import type { EntityManager } from 'typeorm';
import type { ImportOutcome } from '@corpus-chat/contracts';

/** The live (not archived) report with these bytes, if any: a file is imported once until archived. */
export async function findLiveDuplicate(
  manager: EntityManager,
  contentHash: string,
): Promise<{ id: number; filename: string } | undefined> {
  const rows: { id: number; filename: string }[] = await manager.query(
    `SELECT id, filename FROM reports WHERE content_hash = $1 AND NOT archived ORDER BY id LIMIT 1`,
    [contentHash],
  );
  return rows[0];
}

/** The refusal of a file already imported as `existing`, naming it and how to import the file again. */
export function duplicateOutcome(file: string, existing: { id: number; filename: string }): ImportOutcome {
  return {
    ok: false,
    file,
    code: 'DUPLICATE',
    existingReportId: existing.id,
    error: `this report was already imported as report ${existing.id} (${existing.filename}); archive that one to import it again`,
  };
}
