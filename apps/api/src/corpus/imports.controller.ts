import { Controller, Get, HttpCode, HttpStatus, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { ImportJobView } from '@corpus-chat/contracts';
import { CurrentOperator, type AuthenticatedOperator } from '../auth/current-operator';
import { UuidParam } from '../errors/id-params';
import { ImportsService } from './imports.service';

/** `/api/imports`: the signed-in operator's uploads on their way through the ingest worker. */
@ApiTags('reports')
@Controller('imports')
export class ImportsController {
  constructor(private readonly imports: ImportsService) {}

  @Get()
  @ApiOperation({ summary: 'Your 50 most recent imports, newest first' })
  list(@CurrentOperator() operator: AuthenticatedOperator): Promise<ImportJobView[]> {
    return this.imports.list(operator.id);
  }

  @Get(':id')
  @ApiOperation({
    summary:
      'One of your imports: status (queued, parsing, ready, failed, cancelled) and, once ended, the outcome',
  })
  get(
    @UuidParam('id') id: string,
    @CurrentOperator() operator: AuthenticatedOperator,
  ): Promise<ImportJobView> {
    return this.imports.get(operator.id, id);
  }

  @Post(':id/cancel')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Cancel a queued or parsing import (nothing is written); 404 unknown, 409 already ended',
  })
  cancel(
    @UuidParam('id') id: string,
    @CurrentOperator() operator: AuthenticatedOperator,
  ): Promise<ImportJobView> {
    return this.imports.cancel(operator.id, id);
  }
}
