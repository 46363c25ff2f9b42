import { z } from 'zod';
import { SEVERITIES, VERDICT_STATUSES } from '../corpus/corpus.types';
import { cweNumbers, isoDateText, operatorIdFilter, optionalText, pageLimit } from '../validation/dto-fields';
import { zodDto } from '../validation/zod-dto';
import {
  AUDIT_ACTIONS,
  AUDIT_CURSOR_PATTERN,
  AUDIT_SUBJECT_TYPES,
  BULK_STATUS_MAX,
  OPERATOR_NOTE_STAGES,
  TRIAGE_STATUSES,
} from './triage.types';

/** A closed set of values, refused with a message listing them. */
const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: `must be one of ${values.join(', ')}` });

/** Text that must say something, at most `max` characters. */
const saying = (max: number, error = 'must not be empty') => z.string().min(1, { error }).max(max);

const setFindingStatus = z.strictObject({
  status: oneOf(TRIAGE_STATUSES),
  /** Required for false_positive, risk_accepted and reopening (checked by the service). */
  reason: z.string().max(2000).optional(),
});

/** `PATCH /api/findings/:id/status` */
export class SetFindingStatusDto extends zodDto(setFindingStatus) {}

const findingIds = { error: 'must be finding ids (positive integers)' };
/** `POST /api/findings/status`: the same change for many findings, all or none. */
export class BulkSetFindingStatusDto extends zodDto(
  setFindingStatus.extend({
    ids: z
      .array(z.number(findingIds).int(findingIds).min(1, findingIds).max(2_147_483_647, findingIds))
      .min(1, { error: 'must list at least one finding id' })
      .max(BULK_STATUS_MAX, { error: `may list at most ${BULK_STATUS_MAX} findings` }),
  }),
) {}

/** `POST /api/findings/:id/versions`: the fields to change (at least one) and why. */
export class EditFindingDto extends zodDto(
  z.strictObject({
    title: saying(500).optional(),
    severity: oneOf(SEVERITIES).optional(),
    /** CWE numbers (79 for CWE-79). */
    cwe: cweNumbers(),
    description: optionalText(20000),
    /** `''` clears the impact. */
    impact: optionalText(20000),
    affectedEndpoints: z.array(z.string().max(2000)).max(200).optional(),
    reason: saying(2000, 'must say why the finding is edited'),
  }),
) {}

/** `POST /api/findings/:id/notes` */
export class AddFindingNoteDto extends zodDto(
  z.strictObject({ stage: oneOf(OPERATOR_NOTE_STAGES), body: saying(20000) }),
) {}

/** `POST /api/findings/:id/retests`: a retest an operator ran by hand and its verdict. */
export class RecordRetestDto extends zodDto(
  z.strictObject({
    /** What was tried (request sent, version checked…). */
    tried: saying(20000, 'must say what was tried'),
    /** When the retest was run (ISO 8601); not in the future. */
    retestedAt: isoDateText('must be an ISO 8601 date-time'),
    verdict: oneOf(VERDICT_STATUSES),
    rationale: saying(20000, 'must say why the verdict follows'),
  }),
) {}

/** Query string of `GET /api/audit` (admin). */
export class AuditQueryDto extends zodDto(
  z.strictObject({
    action: oneOf(AUDIT_ACTIONS).optional(),
    actorId: operatorIdFilter(),
    subjectType: oneOf(AUDIT_SUBJECT_TYPES).optional(),
    subjectId: z.string().max(100).optional(),
    /** Events at or after this date or date-time (ISO 8601; a date without an offset is UTC). */
    from: isoDateText('must be an ISO 8601 date or date-time').optional(),
    /** Events before this date or date-time (ISO 8601; a date without an offset is UTC). */
    to: isoDateText('must be an ISO 8601 date or date-time').optional(),
    /** The previous page's `nextCursor`. */
    cursor: z
      .string()
      .regex(AUDIT_CURSOR_PATTERN, { error: 'must be a nextCursor the API answered' })
      .optional(),
    limit: pageLimit(),
  }),
) {}
