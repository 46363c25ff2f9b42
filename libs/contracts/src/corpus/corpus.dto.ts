import { IsBoolean, IsIn, IsOptional } from 'class-validator';

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
