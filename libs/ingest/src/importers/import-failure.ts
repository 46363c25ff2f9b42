import crypto from 'node:crypto';
import { Logger } from '@nestjs/common';
import type { ImportErrorCode, ImportOutcome } from '@corpus-chat/contracts';

// The apps route Nest's static loggers to pino; the CLIs print them on the console.
const logger = new Logger('Import');

type Refused = Extract<ImportOutcome, { ok: false }>;

/**
 * SQLSTATE of a driver error thrown through TypeORM (its `QueryFailedError` carries `driverError`),
 * if it is one. Read by shape, not `instanceof`: the import parse thread loads this file, and
 * loading TypeORM there doubled the thread's start (bench scenario 8).
 */
export function sqlState(e: unknown): string | undefined {
  const code = (e as { driverError?: { code?: unknown } } | null)?.driverError?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * What a database refusal says about the content, in words, for the SQLSTATEs that mean the
 * content (not the database) is at fault: class 22 (data exception), 23 (integrity) and 54
 * (a value over a limit). Null for any other failure.
 */
export function contentFault(code: string | undefined): string | null {
  if (!code) return null;
  if (code === '22021' || code === '22P05')
    return 'it holds a character the database cannot store (such as a NUL byte or a broken escape)';
  if (code === '22001' || code.startsWith('54'))
    return 'a value in it is too large for the database to store or index';
  if (code.startsWith('22')) return 'it holds a value the database cannot store';
  if (code.startsWith('23')) return 'it conflicts with data already stored';
  return null;
}

/**
 * The outcome of an import that failed for a reason the file's parser did not name: `what` says
 * what went wrong in words. The raw error (driver text, stack) goes to the log only, under a short
 * error id that the sentence quotes, so a person can report it and support can find it.
 */
export function failedImport(
  file: string,
  e: unknown,
  what: string,
  code: ImportErrorCode = 'STORE_FAILED',
): Refused {
  const errorId = crypto.randomBytes(3).toString('hex');
  logger.error(
    { errorId, file, sqlState: sqlState(e), err: e instanceof Error ? e.stack : String(e) },
    `import of ${file} failed (error id ${errorId})`,
  );
  return { ok: false, file, code, error: `${what}; nothing was imported (error id ${errorId})` };
}

/**
 * The outcome of an import whose storing or reading threw: the content's fault in words when the
 * database refused it (`INVALID`), else a failure to try again (`STORE_FAILED`).
 */
export function importFailure(file: string, e: unknown): Refused {
  const fault = contentFault(sqlState(e));
  if (fault) return failedImport(file, e, `the database refused the report: ${fault}`, 'INVALID');
  return failedImport(file, e, 'the report could not be stored because of a server error; try again later');
}
