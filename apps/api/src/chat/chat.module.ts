import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CHAT_TURNS_QUEUE, WEBHOOKS_QUEUE } from '@corpus-chat/contracts';
import { ChatRepository, QueuePositions, TurnActivityQueries, TurnLedger } from '@corpus-chat/persistence';
import { ApiEnv } from '../config/api-env';
import { ChatEventRelay } from './chat-event-relay';
import { ChatSocketEnv, loadChatSocketEnv } from './chat-socket.env';
import { ChatController } from './chat.controller';
import { ChatGateway } from './chat.gateway';
import { ChatService } from './chat.service';
import { ChatWarmup } from './chat-warmup';
import { QueuePositionPublisher } from './queue-position-publisher';
import { SocketLimits } from './socket-limits';
import { MessageBudget } from './message-budget';
import { TurnDispatcher } from './turn-dispatcher';
import { TurnActivityGateway } from './turn-activity.gateway';
import { TurnActivityService } from './turn-activity.service';

/** Threads and turns: `/api/chats`, the `/chat` gateway and the API's side of the turn queue. */
@Module({
  imports: [BullModule.registerQueue({ name: CHAT_TURNS_QUEUE }, { name: WEBHOOKS_QUEUE })],
  controllers: [ChatController],
  providers: [
    { provide: ChatRepository, useFactory: (ds: DataSource) => new ChatRepository(ds), inject: [DataSource] },
    { provide: TurnLedger, useFactory: (ds: DataSource) => new TurnLedger(ds), inject: [DataSource] },
    { provide: QueuePositions, useFactory: (ds: DataSource) => new QueuePositions(ds), inject: [DataSource] },
    {
      provide: TurnActivityQueries,
      useFactory: (ds: DataSource) => new TurnActivityQueries(ds),
      inject: [DataSource],
    },
    TurnActivityService,
    TurnActivityGateway,
    QueuePositionPublisher,
    ChatService,
    ChatWarmup,
    TurnDispatcher,
    // Read from the validated ApiEnv, which keeps the variables it does not declare.
    {
      provide: ChatSocketEnv,
      useFactory: (env: ApiEnv) => loadChatSocketEnv(env as unknown as Record<string, unknown>),
      inject: [ApiEnv],
    },
    SocketLimits,
    MessageBudget,
    ChatEventRelay,
    ChatGateway,
  ],
  exports: [ChatService],
})
export class ChatModule {}
