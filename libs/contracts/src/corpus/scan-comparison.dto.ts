import { z } from 'zod';
import { queryInt } from '../validation/dto-fields';
import { zodDto } from '../validation/zod-dto';

/** Query string of `GET /api/reports/compare`: the older report (baseline) and the newer one, by id. */
export class CompareReportsQueryDto extends zodDto(
  z.strictObject({
    baseline: queryInt(1, undefined, 'must be the id of the older report (a positive integer)'),
    report: queryInt(1, undefined, 'must be the id of the newer report (a positive integer)'),
    /** `csv`: the new and fixed findings as a CSV download instead of JSON. */
    format: z.enum(['json', 'csv'], { error: 'must be json or csv' }).optional(),
  }),
) {}
