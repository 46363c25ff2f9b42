import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CHAT_TURNS_QUEUE } from '@corpus-chat/contracts';
import { ChatRepository, TurnLedger } from '@corpus-chat/corpus-queries';
import { ChatEventRelay } from './chat-event-relay';
import { ChatController } from './chat.controller';
import { ChatGateway } from './chat.gateway';
import { ChatService } from './chat.service';
import { MessageBudget } from './message-budget';
import { TurnDispatcher } from './turn-dispatcher';
import { TurnSweeper } from './turn-sweeper';

/**
 * Threads and turns: REST (`/api/chats`), the `/chat` Socket.IO gateway, and the API's side of
 * the turn queue. Needs the global `ApiCoreModule` (database, BullMQ, turn pipeline) and
 * `AuthModule` (operator, socket auth, limits).
 */
@Module({
  imports: [BullModule.registerQueue({ name: CHAT_TURNS_QUEUE })],
  controllers: [ChatController],
  providers: [
    { provide: ChatRepository, useFactory: (ds: DataSource) => new ChatRepository(ds), inject: [DataSource] },
    { provide: TurnLedger, useFactory: (ds: DataSource) => new TurnLedger(ds), inject: [DataSource] },
    ChatService,
    TurnDispatcher,
    TurnSweeper,
    MessageBudget,
    ChatEventRelay,
    ChatGateway,
  ],
  exports: [ChatService],
})
export class ChatModule {}
