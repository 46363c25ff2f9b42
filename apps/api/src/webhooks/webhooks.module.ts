import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { WEBHOOKS_QUEUE } from '@corpus-chat/contracts';
import { WebhooksController } from './webhooks.controller';
import { WebhooksService } from './webhooks.service';

/** `/api/webhooks`. Needs the global `ApiCoreModule` (database, BullMQ) and `AuthModule`. */
@Module({
  imports: [BullModule.registerQueue({ name: WEBHOOKS_QUEUE })],
  controllers: [WebhooksController],
  providers: [WebhooksService],
})
export class WebhooksModule {}
