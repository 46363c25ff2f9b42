import type { EntityManager } from 'typeorm';
import type {
  FindingDetail,
  FindingDetailResult,
  FindingNoteView,
  FindingVersionView,
  VerdictView,
} from '@corpus-chat/contracts';
import { cachedQuery, type QueryOptions } from './query-cache';
import { findingId } from './query-validation';

type DetailRecord = Omit<FindingVersionView, 'createdAt'> & {
  id: number;
  reportId: number | null;
  reportFilename: string | null;
  createdAt: Date;
  versionCount: number;
  status: FindingDetail['status'];
  versionCreatedAt: Date;
};

const iso = (d: Date | string): string => new Date(d).toISOString();

/**
 * One finding by id with its current version, notes and latest verdict; `{ found: false, id }`
 * when unknown. Cached per corpus version.
 *
 * @throws QueryValidationError when `id` is not a positive integer.
 */
export async function findingDetail(
  manager: EntityManager,
  id: number,
  options?: QueryOptions,
): Promise<FindingDetailResult> {
  const fid = findingId(id);
  return cachedQuery(
    manager,
    'findingDetail',
    { id: fid },
    options,
    async (): Promise<FindingDetailResult> => {
      const [row]: DetailRecord[] = await manager.query(
        `SELECT f.id, f.report_id AS "reportId", r.filename AS "reportFilename", f.created_at AS "createdAt",
              (SELECT count(*)::int FROM finding_versions x WHERE x.finding_id = f.id) AS "versionCount", f.status,
              fv.version, fv.origin, fv.title, fv.severity::text AS severity, fv.description, fv.impact,
              fv.attack_vector AS "attackVector", fv.affected_endpoints AS "affectedEndpoints",
              fv.reproduction_steps AS "reproductionSteps", fv.cwe, fv.cvss, fv.mitre, fv.edited_by AS "editedBy",
              fv.reason, fv.created_at AS "versionCreatedAt"
       FROM findings f
       JOIN finding_versions fv ON fv.id = f.current_version_id
       LEFT JOIN reports r ON r.id = f.report_id
       WHERE f.id = $1`,
        [fid],
      );
      if (!row) return { found: false, id: fid };
      const notes: (Omit<FindingNoteView, 'createdAt'> & { createdAt: Date })[] = await manager.query(
        `SELECT stage, body, author, created_at AS "createdAt" FROM finding_notes WHERE finding_id = $1 ORDER BY created_at, id`,
        [fid],
      );
      const verdicts: (Omit<VerdictView, 'createdAt'> & { createdAt: Date })[] = await manager.query(
        `SELECT status, reason_code AS "reasonCode", rationale, actor, created_at AS "createdAt"
         FROM verdicts WHERE finding_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1`,
        [fid],
      );
      const { id, reportId, reportFilename, createdAt, versionCount, status, versionCreatedAt, ...current } =
        row;
      return {
        found: true,
        finding: {
          id,
          reportId,
          reportFilename,
          createdAt: iso(createdAt),
          versionCount,
          status,
          current: { ...current, createdAt: iso(versionCreatedAt) },
          notes: notes.map((n) => ({ ...n, createdAt: iso(n.createdAt) })),
          latestVerdict: verdicts[0] ? { ...verdicts[0], createdAt: iso(verdicts[0].createdAt) } : null,
        },
      };
    },
  );
}
