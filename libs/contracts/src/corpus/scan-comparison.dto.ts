import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';

/** Largest id of an `integer` identity column (reports.id). */
const MAX_REPORT_ID = 2_147_483_647;

/** Query string of `GET /api/reports/compare`: the older report (baseline) and the newer one, by id. */
export class CompareReportsQueryDto {
  @Type(() => Number)
  @IsInt({ message: 'baseline must be the id of the older report (a positive integer)' })
  @Min(1, { message: 'baseline must be the id of the older report (a positive integer)' })
  @Max(MAX_REPORT_ID)
  baseline!: number;

  @Type(() => Number)
  @IsInt({ message: 'report must be the id of the newer report (a positive integer)' })
  @Min(1, { message: 'report must be the id of the newer report (a positive integer)' })
  @Max(MAX_REPORT_ID)
  report!: number;

  /** `csv`: the new and fixed findings as a CSV download instead of JSON. */
  @IsOptional()
  @IsIn(['json', 'csv'], { message: 'format must be json or csv' })
  format?: 'json' | 'csv';
}
