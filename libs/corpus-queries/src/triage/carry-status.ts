import type { EntityManager } from 'typeorm';
import type { CarriedTriage } from '@corpus-chat/contracts';

/** Who a carried-over status change names: no operator decided it, the import did. */
export const CARRIED_STATUS_ACTOR = 'import';

/**
 * Carries triage statuses from the baseline scan to a re-scan, in the import's transaction: paired
 * identities (n-th with n-th) keep `false_positive`, `risk_accepted` or `confirmed`; a `fixed` one
 * seen again reopens. Each carry is a `finding_status_changes` row naming its source. One statement.
 */
export async function carryTriageStatus(
  tx: EntityManager,
  baseline: { id: number; filename: string },
  report: { id: number; filename: string },
): Promise<CarriedTriage> {
  const rows: { to: string; n: number }[] = await tx.query(
    `WITH pairs AS (
       SELECT n.id AS new_id, o.id AS old_id, o.status AS old_status
       FROM (SELECT id, identity_key, row_number() OVER (PARTITION BY identity_key ORDER BY id) AS nth
               FROM findings WHERE report_id = $2 AND identity_key IS NOT NULL) n
       JOIN (SELECT id, identity_key, status, row_number() OVER (PARTITION BY identity_key ORDER BY id) AS nth
               FROM findings WHERE report_id = $1 AND identity_key IS NOT NULL AND status <> 'open') o
         USING (identity_key, nth)
     ), kept AS (
       UPDATE findings f SET status = p.old_status FROM pairs p WHERE f.id = p.new_id AND p.old_status <> 'fixed'
       RETURNING f.id
     ), changes AS (
       INSERT INTO finding_status_changes (finding_id, from_status, to_status, reason, actor_id, actor_name, carried_from_finding_id)
       SELECT p.new_id,
              CASE WHEN p.old_status = 'fixed' THEN 'fixed' ELSE 'open' END,
              CASE WHEN p.old_status = 'fixed' THEN 'open' ELSE p.old_status END,
              CASE WHEN p.old_status = 'fixed'
                THEN 'seen again in ' || $4 || ' after being marked fixed (finding #' || p.old_id || ' of report ' || $3 || ')'
                ELSE 'carried over from finding #' || p.old_id || ' of report ' || $3 END,
              NULL, $5, p.old_id
       FROM pairs p ORDER BY p.new_id
       RETURNING to_status, from_status
     )
     SELECT CASE WHEN from_status = 'fixed' THEN 'reopened' ELSE to_status END AS "to", count(*)::int AS n
     FROM changes GROUP BY 1`,
    [baseline.id, report.id, baseline.filename, report.filename, CARRIED_STATUS_ACTOR],
  );
  const count = (k: string) => rows.find((r) => r.to === k)?.n ?? 0;
  return {
    falsePositive: count('false_positive'),
    riskAccepted: count('risk_accepted'),
    confirmed: count('confirmed'),
    reopened: count('reopened'),
  };
}
