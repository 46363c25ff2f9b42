import { type ArgumentsHost, Catch, type ExceptionFilter, Inject, PayloadTooLargeException } from '@nestjs/common';
import type { Response } from 'express';
import { CORPUS_IMPORT_OPTIONS, type CorpusImportOptions } from './corpus-import.options';

/** Multer's "File too large" as an actionable 413 naming the import limit. */
@Catch(PayloadTooLargeException)
export class ImportLimitFilter implements ExceptionFilter {
  constructor(@Inject(CORPUS_IMPORT_OPTIONS) private readonly options: CorpusImportOptions) {}

  catch(_error: PayloadTooLargeException, host: ArgumentsHost): void {
    const mb = (this.options.maxImportBytes / (1024 * 1024)).toFixed(1);
    host
      .switchToHttp()
      .getResponse<Response>()
      .status(413)
      .json({
        statusCode: 413,
        error: 'TOO_LARGE',
        message: `A file is over the ${mb} MB import limit (at most ${this.options.maxFilesPerRequest} files per request); nothing was imported.`,
        results: [],
      });
  }
}
