import {
  type ArgumentsHost,
  Catch,
  type ExceptionFilter,
  Inject,
  PayloadTooLargeException,
} from '@nestjs/common';
import { describeBytes, sendTooLarge } from '../errors/client-error.filter';
import { CORPUS_IMPORT_OPTIONS, type CorpusImportOptions } from './corpus-import.options';
import { TooManyImportFilesException } from './import-upload';

/** The import route's 413s (`TOO_LARGE`, `TOO_MANY_FILES`) as import answers naming the limit. */
@Catch(PayloadTooLargeException)
export class ImportLimitFilter implements ExceptionFilter {
  constructor(@Inject(CORPUS_IMPORT_OPTIONS) private readonly options: CorpusImportOptions) {}

  catch(error: PayloadTooLargeException, host: ArgumentsHost): void {
    const tooMany = error instanceof TooManyImportFilesException;
    sendTooLarge(
      host,
      tooMany ? 'TOO_MANY_FILES' : 'TOO_LARGE',
      tooMany
        ? error.message
        : `A file is over the ${describeBytes(this.options.maxImportBytes)} import limit; nothing was imported.`,
      { results: [] },
    );
  }
}
