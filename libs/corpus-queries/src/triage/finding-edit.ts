import type { EntityManager } from 'typeorm';
import { SEVERITIES, type EditableFindingField, type Severity } from '@corpus-chat/contracts';
import { recordAuditEvent, type AuditActor, storableText } from '@corpus-chat/persistence';
import { QueryValidationError } from '../queries/query-validation';

/** The fields an edit may change; absent ones keep the current version's value. `impact: ''` clears it. */
export interface FindingChanges {
  title?: string;
  severity?: Severity;
  cwe?: number[];
  description?: string;
  impact?: string | null;
  affectedEndpoints?: string[];
}

/** Outcome of {@link editFinding}. */
export type EditFindingResult =
  { status: 'ok'; version: number; changed: EditableFindingField[] } | { status: 'not_found'; id: number };

interface CurrentVersion {
  id: number;
  versionId: number;
  version: number;
  title: string;
  severity: Severity;
  cwe: number[];
  description: string;
  impact: string | null;
  affectedEndpoints: string[];
}

/** The changes in stored form: trimmed title, sorted distinct CWE ids, blank endpoints dropped, `''` impact as null. */
function normalise(changes: FindingChanges): FindingChanges {
  const out: FindingChanges = {};
  if (changes.title !== undefined) {
    const title = storableText(changes.title.replace(/\s+/g, ' ').trim());
    if (!title) throw new QueryValidationError('title', 'title must not be empty');
    out.title = title;
  }
  if (changes.severity !== undefined) {
    if (!SEVERITIES.includes(changes.severity))
      throw new QueryValidationError('severity', `severity must be one of ${SEVERITIES.join(', ')}`);
    out.severity = changes.severity;
  }
  if (changes.cwe !== undefined) {
    if (changes.cwe.some((c) => !Number.isSafeInteger(c) || c < 1))
      throw new QueryValidationError('cwe', 'cwe must list CWE numbers (79 for CWE-79)');
    out.cwe = [...new Set(changes.cwe)].sort((a, b) => a - b);
  }
  if (changes.description !== undefined) out.description = storableText(changes.description.trim());
  if (changes.impact !== undefined) out.impact = storableText(changes.impact?.trim() ?? '') || null;
  if (changes.affectedEndpoints !== undefined)
    out.affectedEndpoints = changes.affectedEndpoints.map((e) => storableText(e.trim())).filter(Boolean);
  return out;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Edits a finding by appending a version (origin `edit`) with `changes` applied and making it
 * current, audited, in one transaction. Earlier versions never change.
 *
 * @throws QueryValidationError for an empty reason, a bad value, or no change.
 */
export async function editFinding(
  manager: EntityManager,
  id: number,
  changes: FindingChanges,
  reason: string,
  actor: AuditActor,
): Promise<EditFindingResult> {
  const why = storableText(reason?.trim() ?? '');
  if (!why) throw new QueryValidationError('reason', 'reason must say why the finding is edited');
  const next = normalise(changes);
  return manager.transaction(async (tx): Promise<EditFindingResult> => {
    const [cur]: CurrentVersion[] = await tx.query(
      `SELECT f.id, fv.id AS "versionId", fv.version, fv.title, fv.severity::text AS severity, fv.cwe, fv.description,
              fv.impact, fv.affected_endpoints AS "affectedEndpoints"
       FROM findings f JOIN finding_versions fv ON fv.id = f.current_version_id
       WHERE f.id = $1 FOR UPDATE OF f`,
      [id],
    );
    if (!cur) return { status: 'not_found', id };
    const changed = (Object.keys(next) as EditableFindingField[]).filter((k) => !same(next[k], cur[k]));
    if (changed.length === 0) {
      throw new QueryValidationError(
        'changes',
        'the edit changes nothing: give at least one field with a new value',
      );
    }
    const v = { ...cur, ...next };
    const [{ id: versionId, version }]: { id: number; version: number }[] = await tx.query(
      `INSERT INTO finding_versions (finding_id, version, origin, title, severity, description, impact, attack_vector,
                                     affected_endpoints, reproduction_steps, cwe, cvss, mitre, edited_by, reason)
       SELECT finding_id, $2, 'edit', $3, $4::finding_severity, $5, $6, attack_vector, $7::jsonb, reproduction_steps,
              $8::int[], cvss, mitre, $9, $10
       FROM finding_versions WHERE id = $1
       RETURNING id, version`,
      [
        cur.versionId,
        cur.version + 1,
        v.title,
        v.severity,
        v.description,
        v.impact,
        JSON.stringify(v.affectedEndpoints),
        v.cwe,
        actor.username,
        why,
      ],
    );
    await tx.query(
      `UPDATE findings SET current_version_id = $2, severity = $3::finding_severity, cwe = $4::int[] WHERE id = $1`,
      [id, versionId, v.severity, v.cwe],
    );
    await recordAuditEvent(tx, {
      action: 'finding.edit',
      actor,
      subjectType: 'finding',
      subjectId: id,
      before: { version: cur.version, ...Object.fromEntries(changed.map((k) => [k, cur[k]])) },
      after: { version, reason: why, ...Object.fromEntries(changed.map((k) => [k, v[k]])) },
    });
    return { status: 'ok', version, changed };
  });
}
