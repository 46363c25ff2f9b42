import { Controller, Get, Query, StreamableFile, UseFilters } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Readable } from 'node:stream';
import { DataSource } from 'typeorm';
import { CompareReportsQueryDto, type SameTargetScans, type ScanComparison } from '@corpus-chat/contracts';
import { compareReports, runReadOnly, sameTargetScans } from '@corpus-chat/corpus-queries';
import { recordAuditEvent } from '@corpus-chat/persistence';
import { type AuthenticatedOperator, CurrentOperator } from '../auth/current-operator';
import { IntIdParam } from '../errors/id-params';
import { ApiQueryFrom } from '../openapi-schemas';
import { comparisonCsvLines } from './comparison-csv';
import { ScanComparisonFilter } from './scan-comparison.filter';

/** Scan comparison over HTTP (IMPORT-RULES.md); any signed-in operator, read-only. */
@ApiTags('reports')
@UseFilters(ScanComparisonFilter)
@Controller('reports')
export class ReportComparisonController {
  constructor(private readonly dataSource: DataSource) {}

  @Get('compare')
  @ApiOperation({
    summary: 'New, fixed and unchanged findings from a baseline report to a later scan of the same target',
    description:
      'format=csv streams the new and fixed findings as CSV (audited as comparison.export). 404 unknown report; 400 the same report twice; 422 a report that names no target or scans of different targets (the message names both targets).',
  })
  @ApiQueryFrom(CompareReportsQueryDto)
  async compare(
    @Query() query: CompareReportsQueryDto,
    @CurrentOperator() operator: AuthenticatedOperator,
  ): Promise<ScanComparison | StreamableFile> {
    const comparison = await runReadOnly(this.dataSource, (m) =>
      compareReports(m, { baseline: query.baseline, report: query.report }),
    );
    if (query.format !== 'csv') return comparison;
    // A download takes findings out of the product, so it is audited like the findings export.
    await recordAuditEvent(this.dataSource.manager, {
      action: 'comparison.export',
      actor: operator,
      subjectType: 'report',
      subjectId: comparison.report.id,
      after: {
        baselineReportId: comparison.baseline.id,
        new: comparison.new,
        fixed: comparison.fixed,
        rows: comparison.new + comparison.fixed,
      },
    });
    return new StreamableFile(Readable.from(comparisonCsvLines(comparison)), {
      type: 'text/csv; charset=utf-8',
      disposition: `attachment; filename="comparison-${comparison.baseline.id}-${comparison.report.id}.csv"`,
    });
  }

  @Get(':id/scans')
  @ApiOperation({
    summary:
      "A report's scans of the same target, itself included, oldest recorded scan time first; 404 unknown report",
  })
  scans(@IntIdParam('id') id: number): Promise<SameTargetScans> {
    return runReadOnly(this.dataSource, (m) => sameTargetScans(m, id));
  }
}
