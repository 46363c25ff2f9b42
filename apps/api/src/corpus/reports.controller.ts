import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  HttpStatus,
  Inject,
  Patch,
  Post,
  Query,
  UploadedFiles,
  UseFilters,
  UseInterceptors,
  BadRequestException,
} from '@nestjs/common';
import { AnyFilesInterceptor } from '@nestjs/platform-express';
import { ApiBody, ApiConsumes, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  ListReportsQueryDto,
  UpdateReportDto,
  type QueuedImportsResponse,
  type ReportSummary,
} from '@corpus-chat/contracts';
import { Roles } from '../auth/auth.decorators';
import { CurrentOperator, type AuthenticatedOperator } from '../auth/current-operator';
import { IntIdParam } from '../errors/id-params';
import { ApiQueryFrom } from '../openapi-schemas';
import { CORPUS_IMPORT_OPTIONS, type CorpusImportOptions } from './corpus-import.options';
import { CorpusService } from './corpus.service';
import { ImportLimitFilter } from './import-limit.filter';
import { IMPORT_FILES_FIELD } from './import-upload';
import { ImportsService, type UploadedReportFile } from './imports.service';
import { QueryValidationFilter } from './query-validation.filter';
import { ReadScope } from '../auth/auth.decorators';

/**
 * `/api/reports`: list, import (multipart) and archive the shared corpus's reports: any signed-in
 * operator (archiving is reversible and audited). Deleting is for admins, and only of an archived report.
 */
@ApiTags('reports')
@UseFilters(QueryValidationFilter)
@Controller('reports')
export class ReportsController {
  constructor(
    private readonly corpus: CorpusService,
    private readonly imports: ImportsService,
    @Inject(CORPUS_IMPORT_OPTIONS) private readonly options: CorpusImportOptions,
  ) {}

  @Get()
  @ReadScope()
  @ApiOperation({
    summary: 'Every report with its finding counts by severity; archived ones with includeArchived=true',
  })
  @ApiQueryFrom(ListReportsQueryDto)
  list(@Query() query: ListReportsQueryDto): Promise<ReportSummary[]> {
    return this.corpus.listReports(query.includeArchived === 'true');
  }

  @Post('import')
  @UseFilters(ImportLimitFilter)
  // Any field: a file in another one than `files` is refused naming the field (see importMulterOptions).
  @UseInterceptors(AnyFilesInterceptor())
  @ApiConsumes('multipart/form-data')
  @ApiBody({
    schema: {
      type: 'object',
      properties: { files: { type: 'array', items: { type: 'string', format: 'binary' } } },
    },
  })
  @HttpCode(HttpStatus.ACCEPTED)
  @ApiOperation({
    summary: 'Queue scanner or native report files (field "files") for import; one queued import per file',
    description:
      '202 with one import per file (follow it with the `import:event` socket message or GET ' +
      '/api/imports/:id: it ends ready, failed with the refusal, e.g. a duplicate or an unsupported ' +
      'format, or cancelled); 413 a file over the size limit (refused while it streams) or too many ' +
      'files (20 by default); 429 the operator already has too many imports waiting or running, or ' +
      'too many bytes of queued uploads; 400 no file, or a file in another field than "files"; 503 ' +
      'the queue is unavailable. Nothing is queued unless every file was received.',
  })
  async import(
    @UploadedFiles() files: UploadedReportFile[] | undefined,
    @CurrentOperator() operator: AuthenticatedOperator,
  ): Promise<QueuedImportsResponse> {
    if (!files?.length) {
      throw new BadRequestException(
        `upload one or more files in the multipart field '${IMPORT_FILES_FIELD}' (none was sent)`,
      );
    }
    const quota = { imports: this.options.maxQueuedImports, bytes: this.options.maxQueuedBytes };
    return { imports: await this.imports.queueImports(files, operator.id, quota) };
  }

  @Patch(':id')
  @ApiOperation({
    summary: 'Archive (hide from every count) or restore a report; 404 unknown, 409 restoring a duplicate',
  })
  update(
    @IntIdParam('id') id: number,
    @Body() dto: UpdateReportDto,
    @CurrentOperator() operator: AuthenticatedOperator,
  ): Promise<ReportSummary> {
    return this.corpus.setArchived(id, dto.archived, operator);
  }

  @Delete(':id')
  @Roles('admin')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete an archived report and its findings (admin); 404 unknown, 409 not archived',
  })
  remove(@IntIdParam('id') id: number, @CurrentOperator() operator: AuthenticatedOperator): Promise<void> {
    return this.corpus.deleteReport(id, operator);
  }
}
