import fs from 'node:fs/promises';
import { Inject, Injectable, Logger, NotFoundException, UnprocessableEntityException } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  type ChatAttachmentView,
  isImportJobFinished,
  SUPPORTED_IMPORT_FORMATS,
} from '@corpus-chat/contracts';
import {
  chatAttachmentView,
  createChatAttachment,
  deleteChatAttachment,
  ImportQuotaExceeded,
  listChatAttachments,
  mayBeReportFile,
} from '@corpus-chat/ingest';
import { ImportsService, quotaRefusal, type UploadedReportFile, utf8Name } from '../corpus/imports.service';
import { CHAT_ATTACHMENT_OPTIONS, type ChatAttachmentOptions } from './attachment-upload';

const chatNotFound = () => new NotFoundException('Chat not found.');

/**
 * Files attached to a thread: each is recorded with its import in one transaction, then queued on
 * the same `imports` job as an upload on the Reports page. Scoped to the thread's owner.
 */
@Injectable()
export class ChatAttachmentsService {
  private readonly logger = new Logger(ChatAttachmentsService.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly imports: ImportsService,
    @Inject(CHAT_ATTACHMENT_OPTIONS) private readonly options: ChatAttachmentOptions,
  ) {}

  /**
   * Attaches the uploaded `file` to thread `chatId`. @throws UnprocessableEntityException (422)
   * for content no importer reads (binary: images, archives, office documents), listing the
   * supported formats; NotFoundException for a thread that is not the operator's; 429 past the
   * operator's import quota (as `/api/reports/import`);
   * ServiceUnavailableException when the queue is down. The stored upload is removed on each.
   */
  async attach(ownerId: string, chatId: string, file: UploadedReportFile): Promise<ChatAttachmentView> {
    const filename = utf8Name(file.originalname);
    let record: Awaited<ReturnType<typeof createChatAttachment>>;
    try {
      if (!(await mayBeReportFile(file.path))) {
        throw new UnprocessableEntityException(
          `${filename.slice(0, 200)} is not a report file Corpus Chat can import; nothing was attached. Supported formats: ${SUPPORTED_IMPORT_FORMATS}.`,
        );
      }
      record = await createChatAttachment(
        this.dataSource,
        ownerId,
        chatId,
        { filename, uploadPath: file.path, sizeBytes: file.size },
        this.options.quota,
      );
      if (!record) throw chatNotFound();
    } catch (e) {
      throw e instanceof ImportQuotaExceeded ? quotaRefusal(e) : e;
    } finally {
      // The bytes are in Postgres now (or nothing was recorded): the local copy is done with.
      await fs.rm(file.path, { force: true });
    }
    // Deleting the import on a queue failure deletes the attachment with it (foreign key cascade).
    await this.imports.enqueue([record.import], ownerId);
    this.logger.log(
      { operatorId: ownerId, chatId, attachmentId: record.id, importId: record.import.id },
      'file attached',
    );
    return chatAttachmentView(record);
  }

  /** The thread's attachments, oldest first. @throws NotFoundException */
  async list(ownerId: string, chatId: string): Promise<ChatAttachmentView[]> {
    const records = await listChatAttachments(this.dataSource.manager, ownerId, chatId);
    if (!records) throw chatNotFound();
    return records.map(chatAttachmentView);
  }

  /**
   * Takes an attachment off the thread, cancelling its import if it is still running; a report
   * already imported stays in the corpus. @throws NotFoundException
   */
  async remove(ownerId: string, chatId: string, attachmentId: string): Promise<void> {
    const removed = await deleteChatAttachment(this.dataSource, ownerId, chatId, attachmentId);
    if (!removed) throw new NotFoundException(`This chat has no attachment ${attachmentId}.`);
    if (!isImportJobFinished(removed.import.status)) {
      // It may end meanwhile (409): then there is nothing left to stop.
      await this.imports
        .cancel(ownerId, removed.import.id)
        .catch((e: Error) =>
          this.logger.log(`attachment ${attachmentId}: import not cancelled (${e.message})`),
        );
    }
  }
}
