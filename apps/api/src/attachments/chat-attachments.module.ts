import { BullModule } from '@nestjs/bullmq';
import { type DynamicModule, Module } from '@nestjs/common';
import { MulterModule } from '@nestjs/platform-express';
import { IMPORTS_QUEUE } from '@corpus-chat/contracts';
import { ImportsService } from '../corpus/imports.service';
import {
  attachmentMulterOptions,
  CHAT_ATTACHMENT_OPTIONS,
  type ChatAttachmentOptions,
} from './attachment-upload';
import { ChatAttachmentsController } from './chat-attachments.controller';
import { ChatAttachmentsService } from './chat-attachments.service';

/**
 * `/api/chats/:id/attachments`: its own multer settings (10 MB, field `file`), the same `imports`
 * queue and upload folder as `CorpusModule`. Needs the global `ApiCoreModule` and `AuthModule`.
 */
@Module({})
export class ChatAttachmentsModule {
  static forRoot(options: ChatAttachmentOptions): DynamicModule {
    return {
      module: ChatAttachmentsModule,
      imports: [
        MulterModule.register(attachmentMulterOptions(options)),
        BullModule.registerQueue({ name: IMPORTS_QUEUE }),
      ],
      controllers: [ChatAttachmentsController],
      providers: [
        ChatAttachmentsService,
        ImportsService,
        { provide: CHAT_ATTACHMENT_OPTIONS, useValue: options },
      ],
    };
  }
}
