import type { EntityManager } from 'typeorm';
import type {
  FindingHistory,
  FindingVersionView,
  RetestView,
  StatusChangeView,
  TriageStatus,
} from '@corpus-chat/contracts';
import { findingId } from '../queries/query-validation';

const iso = (d: Date | string): string => new Date(d).toISOString();

/**
 * A finding's versions (oldest first), status changes and retests (newest first); null if unknown.
 *
 * @throws QueryValidationError when `id` is not a positive integer.
 */
export async function findingHistory(manager: EntityManager, id: number): Promise<FindingHistory | null> {
  const fid = findingId(id);
  const [finding]: { status: TriageStatus }[] = await manager.query(
    `SELECT status FROM findings WHERE id = $1`,
    [fid],
  );
  if (!finding) return null;
  const versions: (Omit<FindingVersionView, 'createdAt'> & { createdAt: Date })[] = await manager.query(
    `SELECT version, origin, title, severity::text AS severity, description, impact, attack_vector AS "attackVector",
                affected_endpoints AS "affectedEndpoints", reproduction_steps AS "reproductionSteps", cwe, cvss, mitre,
                edited_by AS "editedBy", reason, created_at AS "createdAt"
         FROM finding_versions WHERE finding_id = $1 ORDER BY version`,
    [fid],
  );
  const changes: (Omit<StatusChangeView, 'createdAt'> & { createdAt: Date })[] = await manager.query(
    `SELECT from_status AS "from", to_status AS "to", reason, actor_name AS "actorName", actor_id AS "actorId",
            carried_from_finding_id AS "carriedFromFindingId", created_at AS "createdAt"
         FROM finding_status_changes WHERE finding_id = $1 ORDER BY created_at DESC, id DESC`,
    [fid],
  );
  const retests: (Omit<RetestView, 'createdAt' | 'retestedAt'> & { createdAt: Date; retestedAt: Date })[] =
    await manager.query(
      `SELECT s.id, s.tried, s.retested_at AS "retestedAt", s.author, v.status AS verdict, v.rationale, s.created_at AS "createdAt"
         FROM retest_sessions s LEFT JOIN verdicts v ON v.session_id = s.id
         WHERE s.finding_id = $1 AND s.tried IS NOT NULL ORDER BY s.retested_at DESC, s.id DESC`,
      [fid],
    );
  return {
    id: fid,
    status: finding.status,
    versions: versions.map((v) => ({ ...v, createdAt: iso(v.createdAt) })),
    statusChanges: changes.map((c) => ({ ...c, createdAt: iso(c.createdAt) })),
    retests: retests.map((r) => ({ ...r, retestedAt: iso(r.retestedAt), createdAt: iso(r.createdAt) })),
  };
}
