import { BadRequestException, PayloadTooLargeException } from '@nestjs/common';
import type { MulterModuleOptions } from '@nestjs/platform-express';
import type { CorpusImportOptions } from './corpus-import.options';

/** The multipart field of `POST /api/reports/import` that carries the report files. */
export const IMPORT_FILES_FIELD = 'files';

/**
 * Text fields of a multipart upload: the upload routes read none, so a few short ones are let
 * through (a client may add one) and anything more is 400 after at most 1 KB, never buffered.
 */
const MULTIPART_TEXT_LIMITS = { fields: 10, fieldSize: 1024 } as const;

/** multer limits of an upload route taking at most `files` files (text fields, then parts in all). */
export const multipartLimits = (fileSize: number, files: number) => ({
  fileSize,
  files,
  ...MULTIPART_TEXT_LIMITS,
  parts: files + MULTIPART_TEXT_LIMITS.fields,
});

/** More files in one import request than `CorpusImportOptions.maxFilesPerRequest` (413, nothing imported). */
export class TooManyImportFilesException extends PayloadTooLargeException {
  constructor(readonly maxFiles: number) {
    super(
      `Too many files: at most ${maxFiles} files per import request; nothing was imported. Send the others in another request.`,
    );
  }
}

/** 400 for a file sent in another multipart field than `files`. */
export function wrongFieldException(fieldname: string): BadRequestException {
  return new BadRequestException(
    `upload the files in the multipart field '${IMPORT_FILES_FIELD}' (a file came in '${fieldname.slice(0, 100)}')`,
  );
}

/**
 * multer options of the import route (files stream to disk in `uploadDir`). multer's own refusals
 * name neither field nor limit, so the field and file count are checked here as each part begins
 * (400, 413); an over-size file is multer's 413, reworded by `ImportLimitFilter`.
 */
export function importMulterOptions(options: CorpusImportOptions): MulterModuleOptions {
  /** Files accepted so far, by request. */
  const accepted = new WeakMap<object, number>();
  return {
    // multer creates the folder and names each file with 16 random bytes (never the client's name).
    dest: options.uploadDir,
    // One file more than allowed reaches `fileFilter` (which refuses it naming the limit) before
    // busboy's own count limit would.
    limits: multipartLimits(options.maxImportBytes, options.maxFilesPerRequest + 1),
    fileFilter: (req: object, file, callback) => {
      if (file.fieldname !== IMPORT_FILES_FIELD) return callback(wrongFieldException(file.fieldname), false);
      const count = (accepted.get(req) ?? 0) + 1;
      accepted.set(req, count);
      if (count > options.maxFilesPerRequest)
        return callback(new TooManyImportFilesException(options.maxFilesPerRequest), false);
      callback(null, true);
    },
  };
}
