import { Type } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { GROUP_BY_KEYS, REPORT_FORMATS, SEVERITIES, VERDICT_STATUSES } from './corpus.types';
import type { GroupByKey, ReportFormat, Severity, VerdictStatus } from './corpus.types';
import { SEARCH_ROWS_CAP } from '../tools/tools';
import { FINDING_EDIT_FILTERS, TRIAGE_STATUSES, type FindingEditFilter, type TriageStatus } from '../triage/triage.types';

const CWE_MESSAGE = 'cwe must be a positive integer (79 for CWE-79)';

/** A finding filter in a query string (the filter the `search_findings` tool takes); `GET /api/findings/export.*`. */
export class FindingFilterQueryDto {
  @IsOptional()
  @IsString()
  @MaxLength(500)
  text?: string;

  @IsOptional()
  @IsIn(SEVERITIES, { message: `severity must be one of ${SEVERITIES.join(', ')}` })
  severity?: Severity;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  reportId?: number;

  @IsOptional()
  @IsString()
  @MaxLength(500)
  reportName?: string;

  /** A report format as detected on import (`sarif`, `zap`, …). */
  @IsOptional()
  @IsIn(REPORT_FORMATS, { message: `format must be one of ${REPORT_FORMATS.join(', ')}` })
  format?: ReportFormat;

  /** Part of a scanner's name (`docMetadata.tool.name`), case-insensitive. */
  @IsOptional()
  @IsString()
  @MaxLength(200)
  scanner?: string;

  /** A CWE number: 79 for CWE-79. */
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: CWE_MESSAGE })
  @Min(1, { message: CWE_MESSAGE })
  cwe?: number;

  @IsOptional()
  @IsIn(VERDICT_STATUSES, { message: `verdict must be one of ${VERDICT_STATUSES.join(', ')}` })
  verdict?: VerdictStatus;

  @IsOptional()
  @IsIn(TRIAGE_STATUSES, { message: `status must be one of ${TRIAGE_STATUSES.join(', ')}` })
  status?: TriageStatus;

  /** `severity`: findings operators re-rated; `any`: findings operators edited. */
  @IsOptional()
  @IsIn(FINDING_EDIT_FILTERS, { message: `edited must be one of ${FINDING_EDIT_FILTERS.join(', ')}` })
  edited?: FindingEditFilter;
}

/** Query string of `GET /api/findings`: a finding filter plus a page. */
export class SearchFindingsQueryDto extends FindingFilterQueryDto {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(SEARCH_ROWS_CAP)
  limit?: number;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  offset?: number;
}

/** Query string of `GET /api/findings/counts`. */
export class CountFindingsQueryDto extends SearchFindingsQueryDto {
  @IsIn(GROUP_BY_KEYS)
  groupBy!: GroupByKey;
}

export class ListReportsQueryDto {
  @IsOptional()
  @IsIn(['true', 'false'])
  includeArchived?: 'true' | 'false';
}

/** Body of `PATCH /api/reports/:id`: archive (hide from every count) or restore a report. */
export class UpdateReportDto {
  @IsBoolean()
  archived!: boolean;
}
