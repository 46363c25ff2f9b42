import {
  type ArgumentsHost,
  BadRequestException,
  Catch,
  type ExceptionFilter,
  Inject,
  PayloadTooLargeException,
} from '@nestjs/common';
import type { MulterModuleOptions } from '@nestjs/platform-express';
import type { ImportQuota } from '@corpus-chat/ingest';
import { multipartLimits } from '../corpus/import-upload';
import { describeBytes, sendTooLarge } from '../errors/client-error.filter';

/** The multipart field of `POST /api/chats/:id/attachments` that carries the file. */
export const ATTACHMENT_FIELD = 'file';

/** Limits of chat attachments. */
export interface ChatAttachmentOptions {
  /** Largest attachment, in bytes (10 MB, or the import limit when that is lower). */
  maxBytes: number;
  /** The folder uploads wait in for the ingest worker (shared with `/api/reports/import`). */
  uploadDir: string;
  /** The operator's import quota, shared with `/api/reports/import`. */
  quota: ImportQuota;
}

export const CHAT_ATTACHMENT_OPTIONS = Symbol('CHAT_ATTACHMENT_OPTIONS');

/** 400 for a second file or a file in another field than `file`. */
class AttachmentFieldException extends BadRequestException {}

/**
 * multer options of the attachment route: streams to `uploadDir`, 413 past `maxBytes`; another
 * field or a second file is refused as its part begins.
 */
export function attachmentMulterOptions(options: ChatAttachmentOptions): MulterModuleOptions {
  const accepted = new WeakMap<object, number>();
  return {
    dest: options.uploadDir,
    limits: multipartLimits(options.maxBytes, 2),
    fileFilter: (req: object, file, callback) => {
      if (file.fieldname !== ATTACHMENT_FIELD) {
        return callback(
          new AttachmentFieldException(
            `attach the file in the multipart field '${ATTACHMENT_FIELD}' (it came in '${file.fieldname.slice(0, 100)}')`,
          ),
          false,
        );
      }
      const count = (accepted.get(req) ?? 0) + 1;
      accepted.set(req, count);
      if (count > 1)
        return callback(
          new AttachmentFieldException('attach one file per request; nothing was attached'),
          false,
        );
      callback(null, true);
    },
  };
}

/** multer's "File too large" as an answer naming the limit and where larger files go. */
@Catch(PayloadTooLargeException)
export class AttachmentLimitFilter implements ExceptionFilter {
  constructor(@Inject(CHAT_ATTACHMENT_OPTIONS) private readonly options: ChatAttachmentOptions) {}

  catch(_error: PayloadTooLargeException, host: ArgumentsHost): void {
    sendTooLarge(
      host,
      'TOO_LARGE',
      `The file is over the ${describeBytes(this.options.maxBytes)} limit of chat attachments; nothing was attached. Import larger reports on the Reports page.`,
    );
  }
}
