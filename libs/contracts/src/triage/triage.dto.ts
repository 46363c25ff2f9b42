import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsDateString,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  MinLength,
} from 'class-validator';
import { SEVERITIES, VERDICT_STATUSES, type Severity, type VerdictStatus } from '../corpus/corpus.types';
import { IsOmittable } from '../validation/is-omittable';
import { CweNumbers, OperatorIdFilter, OptionalText, PageLimit } from '../validation/dto-fields';
import {
  AUDIT_ACTIONS,
  AUDIT_SUBJECT_TYPES,
  BULK_STATUS_MAX,
  OPERATOR_NOTE_STAGES,
  TRIAGE_STATUSES,
  type AuditAction,
  type AuditSubjectType,
  type OperatorNoteStage,
  type TriageStatus,
} from './triage.types';

const STATUS_MESSAGE = `status must be one of ${TRIAGE_STATUSES.join(', ')}`;

/** `PATCH /api/findings/:id/status` */
export class SetFindingStatusDto {
  @IsIn(TRIAGE_STATUSES, { message: STATUS_MESSAGE })
  status!: TriageStatus;

  /** Required for false_positive, risk_accepted and reopening (checked by the service). */
  @IsOmittable()
  @IsString()
  @MaxLength(2000)
  reason?: string;
}

/** `POST /api/findings/status`: the same change for many findings, all or none. */
export class BulkSetFindingStatusDto extends SetFindingStatusDto {
  @IsArray()
  @ArrayMinSize(1, { message: 'ids must list at least one finding id' })
  @ArrayMaxSize(BULK_STATUS_MAX, { message: `ids may list at most ${BULK_STATUS_MAX} findings` })
  @IsInt({ each: true, message: 'ids must be finding ids (positive integers)' })
  @Min(1, { each: true, message: 'ids must be finding ids (positive integers)' })
  @Max(2_147_483_647, { each: true, message: 'ids must be finding ids (positive integers)' })
  ids!: number[];
}

/** `POST /api/findings/:id/versions`: the fields to change (at least one) and why. */
export class EditFindingDto {
  @IsOmittable()
  @IsString()
  @MinLength(1)
  @MaxLength(500)
  title?: string;

  @IsOmittable()
  @IsIn(SEVERITIES, { message: `severity must be one of ${SEVERITIES.join(', ')}` })
  severity?: Severity;

  /** CWE numbers (79 for CWE-79). */
  @CweNumbers()
  cwe?: number[];

  @OptionalText(20000)
  description?: string;

  /** `''` clears the impact. */
  @OptionalText(20000)
  impact?: string;

  @IsOmittable()
  @IsArray()
  @ArrayMaxSize(200)
  @IsString({ each: true })
  @MaxLength(2000, { each: true })
  affectedEndpoints?: string[];

  @IsString()
  @MinLength(1, { message: 'reason must say why the finding is edited' })
  @MaxLength(2000)
  reason!: string;
}

/** `POST /api/findings/:id/notes` */
export class AddFindingNoteDto {
  @IsIn(OPERATOR_NOTE_STAGES, { message: `stage must be one of ${OPERATOR_NOTE_STAGES.join(', ')}` })
  stage!: OperatorNoteStage;

  @IsString()
  @MinLength(1, { message: 'body must not be empty' })
  @MaxLength(20000)
  body!: string;
}

/** `POST /api/findings/:id/retests`: a retest an operator ran by hand and its verdict. */
export class RecordRetestDto {
  /** What was tried (request sent, version checked…). */
  @IsString()
  @MinLength(1, { message: 'tried must say what was tried' })
  @MaxLength(20000)
  tried!: string;

  /** When the retest was run (ISO 8601); not in the future. */
  @IsDateString({}, { message: 'retestedAt must be an ISO 8601 date-time' })
  retestedAt!: string;

  @IsIn(VERDICT_STATUSES, { message: `verdict must be one of ${VERDICT_STATUSES.join(', ')}` })
  verdict!: VerdictStatus;

  @IsString()
  @MinLength(1, { message: 'rationale must say why the verdict follows' })
  @MaxLength(20000)
  rationale!: string;
}

/** Query string of `GET /api/audit` (admin). */
export class AuditQueryDto {
  @IsOptional()
  @IsIn(AUDIT_ACTIONS, { message: `action must be one of ${AUDIT_ACTIONS.join(', ')}` })
  action?: AuditAction;

  @OperatorIdFilter()
  actorId?: string;

  @IsOptional()
  @IsIn(AUDIT_SUBJECT_TYPES, { message: `subjectType must be one of ${AUDIT_SUBJECT_TYPES.join(', ')}` })
  subjectType?: AuditSubjectType;

  @IsOptional()
  @IsString()
  @MaxLength(100)
  subjectId?: string;

  /** Only events with a smaller id (the previous page's `nextBefore`). */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  before?: number;

  @PageLimit()
  limit?: number;
}
