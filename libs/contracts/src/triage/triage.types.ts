import type { FindingVersionView, NoteStage, VerdictStatus } from '../corpus/corpus.types';

/**
 * Triage status, decided by a person (DefectDojo's vocabulary). Findings start `open`; a model's
 * extraction from a PDF starts `needs_review`, since PDF text can steer the model.
 */
export const TRIAGE_STATUSES = [
  'open',
  'confirmed',
  'false_positive',
  'risk_accepted',
  'fixed',
  'needs_review',
] as const;
export type TriageStatus = (typeof TRIAGE_STATUSES)[number];

/**
 * Allowed status transitions. A finding marked false positive or fixed can only be reopened;
 * setting the status a finding already has is refused (409), so every change row is a change.
 */
export const TRIAGE_TRANSITIONS: Record<TriageStatus, readonly TriageStatus[]> = {
  open: ['confirmed', 'false_positive', 'risk_accepted', 'fixed'],
  confirmed: ['open', 'false_positive', 'risk_accepted', 'fixed'],
  false_positive: ['open'],
  risk_accepted: ['open', 'fixed'],
  fixed: ['open'],
  // Nothing goes back to `needs_review`: only an extraction sets it.
  needs_review: ['confirmed', 'false_positive', 'open', 'risk_accepted', 'fixed'],
};

/** Statuses whose change needs a reason (a dismissal or acceptance must say why; so must a reopening). */
export const TRIAGE_STATUSES_NEEDING_REASON: readonly TriageStatus[] = [
  'false_positive',
  'risk_accepted',
  'open',
];

/** Note stages an operator may write (`extract` and `goal` are written by the extraction only). */
export const OPERATOR_NOTE_STAGES = [
  'general',
  'triage',
  'retest',
  'verdict',
] as const satisfies readonly NoteStage[];
export type OperatorNoteStage = (typeof OPERATOR_NOTE_STAGES)[number];

/** Fields of a finding an operator may edit; each edit appends a version (origin `edit`). */
export const EDITABLE_FINDING_FIELDS = [
  'title',
  'severity',
  'cwe',
  'description',
  'impact',
  'affectedEndpoints',
] as const;
export type EditableFindingField = (typeof EDITABLE_FINDING_FIELDS)[number];

/**
 * The `edited` filter: `any` keeps findings an operator edited at all (a version of origin `edit`);
 * `severity` those whose current severity differs from version 1's (re-rated, not set back).
 */
export const FINDING_EDIT_FILTERS = ['any', 'severity'] as const;
export type FindingEditFilter = (typeof FINDING_EDIT_FILTERS)[number];

/** Most findings one bulk status change may touch. */
export const BULK_STATUS_MAX = 500;

/** One status change of a finding. */
export interface StatusChangeView {
  from: TriageStatus;
  to: TriageStatus;
  reason: string | null;
  /** Who changed it (username at the time), and their operator id. */
  actorName: string;
  actorId: string | null;
  /** Set when an import carried the status over from this finding of the previous scan (actor `import`). */
  carriedFromFindingId: number | null;
  createdAt: string;
}

/** An operator-entered retest: what was tried, when, and the verdict it led to. */
export interface RetestView {
  id: number;
  tried: string;
  retestedAt: string;
  author: string | null;
  verdict: VerdictStatus | null;
  rationale: string | null;
  createdAt: string;
}

/** `GET /api/findings/:id/history`: every version (oldest first), status changes and retests (newest first). */
export interface FindingHistory {
  id: number;
  status: TriageStatus;
  versions: FindingVersionView[];
  statusChanges: StatusChangeView[];
  retests: RetestView[];
}

/** Result of a bulk status change: the findings changed, in id order. */
export interface BulkStatusResult {
  status: TriageStatus;
  changed: number[];
}

/** What the audit log records (`<subject>.<verb>`). */
export const AUDIT_ACTIONS = [
  'report.import',
  'report.archive',
  'report.restore',
  'report.delete',
  'finding.status',
  'finding.edit',
  'finding.create',
  'report.review_complete',
  'finding.note',
  'finding.retest',
  'findings.export',
  'comparison.export',
  'chat.export',
  'settings.update',
  'operator.create',
  'operator.update',
  'api_token.create',
  'api_token.revoke',
  'webhook.create',
  'webhook.delete',
  'api_token.read',
  'mcp.call',
  'turn.feedback',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** What an audit event is about (`chat`: an operator's own thread, e.g. exported; `turn`: an answer, e.g. rated). */
export const AUDIT_SUBJECT_TYPES = ['report', 'finding', 'settings', 'operator', 'chat', 'turn'] as const;
export type AuditSubjectType = (typeof AUDIT_SUBJECT_TYPES)[number];

/** One audit event; `before`/`after` hold the changed fields where a change has them (never secrets). */
export interface AuditEventView {
  id: number;
  action: AuditAction;
  actorId: string | null;
  actorName: string | null;
  subjectType: AuditSubjectType;
  subjectId: string | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  createdAt: string;
}

/** An audit page's cursor: its last event's time (microseconds since the epoch) and id. */
export const AUDIT_CURSOR_PATTERN = /^(\d{1,17})_(\d{1,19})$/;

/**
 * `GET /api/audit`: newest first by time; `nextCursor` is what to pass as `cursor` for the next page (null:
 * the last).
 */
export interface AuditPage {
  events: AuditEventView[];
  nextCursor: string | null;
}
