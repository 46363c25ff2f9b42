import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { CorpusOverview } from '@corpus-chat/contracts';
import { CorpusService } from './corpus.service';
import { ReadScope } from '../auth/auth.decorators';

/** `/api/corpus/overview`: totals of the non-archived corpus. Any signed-in operator. */
@ApiTags('corpus')
@Controller('corpus')
export class CorpusOverviewController {
  constructor(private readonly corpus: CorpusService) {}

  @Get('overview')
  @ReadScope()
  @ApiOperation({
    summary:
      'Reports by status, findings by severity, verdicts by status, and per report its findings by severity',
  })
  overview(): Promise<CorpusOverview> {
    return this.corpus.overview();
  }
}
