import {
  BadRequestException,
  Controller,
  Delete,
  Get,
  HttpCode,
  HttpStatus,
  Post,
  UploadedFiles,
  UseFilters,
  UseInterceptors,
} from '@nestjs/common';
import { AnyFilesInterceptor } from '@nestjs/platform-express';
import { ApiBody, ApiConsumes, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { ChatAttachmentView } from '@corpus-chat/contracts';
import { ReadScope } from '../auth/auth.decorators';
import { type AuthenticatedOperator, CurrentOperator } from '../auth/current-operator';
import { UuidParam } from '../errors/id-params';
import type { UploadedReportFile } from '../corpus/imports.service';
import { ATTACHMENT_FIELD, AttachmentLimitFilter } from './attachment-upload';
import { ChatAttachmentsService } from './chat-attachments.service';

/** `/api/chats/:id/attachments`: scanner files and PDFs dropped on a thread's composer. */
@ApiTags('chats')
@Controller('chats/:id/attachments')
export class ChatAttachmentsController {
  constructor(private readonly attachments: ChatAttachmentsService) {}

  @Get()
  @ReadScope()
  @ApiOperation({ summary: "The thread's attachments with their imports, oldest first" })
  list(
    @CurrentOperator() op: AuthenticatedOperator,
    @UuidParam('id') id: string,
  ): Promise<ChatAttachmentView[]> {
    return this.attachments.list(op.id, id);
  }

  @Post()
  @UseFilters(AttachmentLimitFilter)
  // Any field: a file in another one than `file` is refused naming the field (see attachmentMulterOptions).
  @UseInterceptors(AnyFilesInterceptor())
  @ApiConsumes('multipart/form-data')
  @ApiBody({
    schema: { type: 'object', properties: { [ATTACHMENT_FIELD]: { type: 'string', format: 'binary' } } },
  })
  @HttpCode(HttpStatus.ACCEPTED)
  @ApiOperation({
    summary:
      'Attach a report file (field "file") to the thread; it is imported like an upload on the Reports page',
    description:
      '202 with the attachment and its queued import (follow it with `import:event`); questions about "this file" are then scoped to its report. 413 over 10 MB (refused while it streams); 422 content no importer reads, listing the supported formats; 400 no file, two files or another field; 404 not your thread; 503 the queue is unavailable.',
  })
  attach(
    @CurrentOperator() op: AuthenticatedOperator,
    @UuidParam('id') id: string,
    @UploadedFiles() files: UploadedReportFile[] | undefined,
  ): Promise<ChatAttachmentView> {
    const file = files?.[0];
    if (!file)
      throw new BadRequestException(
        `attach a file in the multipart field '${ATTACHMENT_FIELD}' (none was sent)`,
      );
    return this.attachments.attach(op.id, id, file);
  }

  @Delete(':attachmentId')
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({
    summary:
      'Take an attachment off the thread (its import is cancelled if still running; an imported report stays)',
  })
  remove(
    @CurrentOperator() op: AuthenticatedOperator,
    @UuidParam('id') id: string,
    @UuidParam('attachmentId') attachmentId: string,
  ): Promise<void> {
    return this.attachments.remove(op.id, id, attachmentId);
  }
}
