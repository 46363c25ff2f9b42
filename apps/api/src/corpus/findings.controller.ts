import { Controller, Get, Query, UseFilters } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  CountFindingsQueryDto,
  SearchFindingsQueryDto,
  type CountFindingsByResult,
  type FindingDetail,
  type SearchFindingsResult,
} from '@corpus-chat/contracts';
import { IntIdParam } from '../errors/id-params';
import { ApiQueryFrom } from '../openapi-schemas';
import { CorpusService } from './corpus.service';
import { QueryValidationFilter } from './query-validation.filter';
import { ReadScope } from '../auth/auth.decorators';

/** `/api/findings`: the same exact queries the agent's tools use. Any signed-in operator. */
@ApiTags('findings')
@UseFilters(QueryValidationFilter)
@Controller('findings')
export class FindingsController {
  constructor(private readonly corpus: CorpusService) {}

  @Get()
  @ReadScope()
  @ApiOperation({ summary: 'Current findings matching a filter: exact total and one page (limit ≤ 50)' })
  @ApiQueryFrom(SearchFindingsQueryDto)
  search(@Query() query: SearchFindingsQueryDto): Promise<SearchFindingsResult> {
    return this.corpus.searchFindings(query);
  }

  @Get('counts')
  @ReadScope()
  @ApiOperation({ summary: 'Exact counts of matching findings grouped by severity, report, CWE or verdict' })
  @ApiQueryFrom(CountFindingsQueryDto)
  counts(@Query() query: CountFindingsQueryDto): Promise<CountFindingsByResult> {
    return this.corpus.countFindings(query);
  }

  @Get(':id')
  @ReadScope()
  @ApiOperation({ summary: 'One finding: current version, number of versions, notes, latest verdict; 404 when unknown' })
  detail(@IntIdParam('id') id: number): Promise<FindingDetail> {
    return this.corpus.findingDetail(id);
  }
}
