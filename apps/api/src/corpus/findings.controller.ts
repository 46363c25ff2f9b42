import { Controller, Get, Query, StreamableFile, UseFilters } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  countFindingsQuerySchema,
  findingFilterQuerySchema,
  searchFindingsQuerySchema,
  type CountFindingsByResult,
  type CountFindingsQuery,
  type FindingDetail,
  type FindingFilterQuery,
  type SearchFindingsQuery,
  type SearchFindingsResult,
} from '@corpus-chat/contracts';
import { IntIdParam } from '../errors/id-params';
import { ZodValidationPipe } from '../errors/zod-validation.pipe';
import { ApiQueryFromSchema } from '../openapi-schemas';
import { CorpusService } from './corpus.service';
import { QueryValidationFilter } from './query-validation.filter';
import { ReadScope } from '../auth/auth.decorators';
import { CurrentOperator, type AuthenticatedOperator } from '../auth/current-operator';

/** `/api/findings`: the same exact queries the agent's tools use. Any signed-in operator. */
@ApiTags('findings')
@UseFilters(QueryValidationFilter)
@Controller('findings')
export class FindingsController {
  constructor(private readonly corpus: CorpusService) {}

  @Get()
  @ReadScope()
  @ApiOperation({ summary: 'Current findings matching a filter: exact total and one page (limit ≤ 50)' })
  @ApiQueryFromSchema(searchFindingsQuerySchema)
  search(
    @Query(new ZodValidationPipe(searchFindingsQuerySchema)) query: SearchFindingsQuery,
  ): Promise<SearchFindingsResult> {
    return this.corpus.searchFindings(query);
  }

  @Get('counts')
  @ReadScope()
  @ApiOperation({ summary: 'Exact counts of matching findings grouped by severity, report, CWE or verdict' })
  @ApiQueryFromSchema(countFindingsQuerySchema)
  counts(
    @Query(new ZodValidationPipe(countFindingsQuerySchema)) query: CountFindingsQuery,
  ): Promise<CountFindingsByResult> {
    return this.corpus.countFindings(query);
  }

  // `format` is the report-format filter, so the export's own format is the path's extension.
  @Get('export.csv')
  @ReadScope()
  @ApiOperation({
    summary: 'Every finding matching a filter as CSV (header row, searchFindings order); 400 bad filter',
  })
  @ApiQueryFromSchema(findingFilterQuerySchema)
  async exportCsv(
    @Query(new ZodValidationPipe(findingFilterQuerySchema)) query: FindingFilterQuery,
    @CurrentOperator() operator: AuthenticatedOperator,
  ): Promise<StreamableFile> {
    return new StreamableFile(await this.corpus.exportFindings(query, 'csv', operator), {
      type: 'text/csv; charset=utf-8',
      disposition: `attachment; filename="${exportFileName('csv')}"`,
    });
  }

  @Get('export.json')
  @ReadScope()
  @ApiOperation({
    summary: 'Every finding matching a filter as one JSON array (searchFindings order); 400 bad filter',
  })
  @ApiQueryFromSchema(findingFilterQuerySchema)
  async exportJson(
    @Query(new ZodValidationPipe(findingFilterQuerySchema)) query: FindingFilterQuery,
    @CurrentOperator() operator: AuthenticatedOperator,
  ): Promise<StreamableFile> {
    return new StreamableFile(await this.corpus.exportFindings(query, 'json', operator), {
      type: 'application/json; charset=utf-8',
      disposition: `attachment; filename="${exportFileName('json')}"`,
    });
  }

  @Get(':id')
  @ReadScope()
  @ApiOperation({
    summary: 'One finding: current version, number of versions, notes, latest verdict; 404 when unknown',
  })
  detail(@IntIdParam('id') id: number): Promise<FindingDetail> {
    return this.corpus.findingDetail(id);
  }
}

/** `findings-2026-12-01T23-40-05Z.csv`: sorts by time and is a valid file name everywhere. */
const exportFileName = (ext: string): string =>
  `findings-${new Date()
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/:/g, '-')}.${ext}`;
