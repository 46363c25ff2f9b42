import { z } from 'zod';
import { zodDto } from '../validation/zod-dto';

export class ListReportsQueryDto extends zodDto(
  z.strictObject({ includeArchived: z.enum(['true', 'false']).optional() }),
) {}

/** Body of `PATCH /api/reports/:id`: archive (hide from every count) or restore a report. */
export class UpdateReportDto extends zodDto(z.strictObject({ archived: z.boolean() })) {}
