import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  HttpException,
  HttpStatus,
  Patch,
  Post,
  Query,
  Res,
  UploadedFiles,
  UseFilters,
  UseInterceptors,
  BadRequestException,
} from '@nestjs/common';
import { AnyFilesInterceptor } from '@nestjs/platform-express';
import { ApiBody, ApiConsumes, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import {
  ListReportsQueryDto,
  UpdateReportDto,
  type ImportErrorCode,
  type ImportReportsResponse,
  type ReportSummary,
} from '@corpus-chat/contracts';
import { Roles } from '../auth/auth.decorators';
import { CurrentOperator, type AuthenticatedOperator } from '../auth/current-operator';
import { IntIdParam } from '../errors/id-params';
import { ApiQueryFrom } from '../openapi-schemas';
import { CorpusService, type UploadedReportFile } from './corpus.service';
import { ImportLimitFilter } from './import-limit.filter';
import { IMPORT_FILES_FIELD } from './import-upload';
import { QueryValidationFilter } from './query-validation.filter';
import { ReadScope } from '../auth/auth.decorators';

/** HTTP status of a batch in which every file failed with `code`. */
const STATUS_OF: Record<ImportErrorCode, number> = {
  DUPLICATE: HttpStatus.CONFLICT,
  TOO_LARGE: HttpStatus.PAYLOAD_TOO_LARGE,
  EMPTY: HttpStatus.UNPROCESSABLE_ENTITY,
  UNSUPPORTED_VERSION: HttpStatus.UNPROCESSABLE_ENTITY,
  UNSUPPORTED_FORMAT: HttpStatus.UNPROCESSABLE_ENTITY,
  UNRECOGNISED_FORMAT: HttpStatus.UNPROCESSABLE_ENTITY,
  INVALID: HttpStatus.UNPROCESSABLE_ENTITY,
};

/**
 * `/api/reports`: list, import (multipart) and archive the shared corpus's reports: any signed-in
 * operator (archiving is reversible and audited). Deleting is for admins, and only of an archived report.
 */
@ApiTags('reports')
@UseFilters(QueryValidationFilter)
@Controller('reports')
export class ReportsController {
  constructor(private readonly corpus: CorpusService) {}

  @Get()
  @ReadScope()
  @ApiOperation({ summary: 'Every report with its finding counts by severity; archived ones with includeArchived=true' })
  @ApiQueryFrom(ListReportsQueryDto)
  list(@Query() query: ListReportsQueryDto): Promise<ReportSummary[]> {
    return this.corpus.listReports(query.includeArchived === 'true');
  }

  @Post('import')
  @UseFilters(ImportLimitFilter)
  // Any field: a file in another one than `files` is refused naming the field (see importMulterOptions).
  @UseInterceptors(AnyFilesInterceptor())
  @ApiConsumes('multipart/form-data')
  @ApiBody({ schema: { type: 'object', properties: { files: { type: 'array', items: { type: 'string', format: 'binary' } } } } })
  @ApiOperation({
    summary: 'Import scanner or native report files (field "files"); one outcome per file',
    description:
      '201 all imported; 409 every file a duplicate; 413 a file over the size limit or too many files (20 by default); 422 every file refused; 200 mixed; 400 no file, or a file in another field than "files".',
  })
  async import(
    @UploadedFiles() files: UploadedReportFile[] | undefined,
    @CurrentOperator() operator: AuthenticatedOperator,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ImportReportsResponse> {
    if (!files?.length) {
      throw new BadRequestException(`upload one or more files in the multipart field '${IMPORT_FILES_FIELD}' (none was sent)`);
    }
    const results = await this.corpus.importFiles(files, operator);
    const failures = results.filter((r) => !r.ok);
    if (failures.length === 0) {
      res.status(HttpStatus.CREATED);
      return { results };
    }
    const codes = new Set(failures.map((f) => (f.ok ? null : f.code)));
    if (failures.length === results.length && codes.size === 1) {
      const code = [...codes][0] as ImportErrorCode;
      const message = failures.map((f) => (f.ok ? '' : `${f.file}: ${f.error}`)).join('; ');
      throw new HttpException({ statusCode: STATUS_OF[code], error: code, message, results }, STATUS_OF[code]);
    }
    res.status(HttpStatus.OK);
    return { results };
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Archive (hide from every count) or restore a report; 404 unknown, 409 restoring a duplicate' })
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
  @ApiOperation({ summary: 'Delete an archived report and its findings (admin); 404 unknown, 409 not archived' })
  remove(@IntIdParam('id') id: number, @CurrentOperator() operator: AuthenticatedOperator): Promise<void> {
    return this.corpus.deleteReport(id, operator);
  }
}
