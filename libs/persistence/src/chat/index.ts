export * from './chat-session.entity';
export * from './chat-turn.entity';
export * from './chat-message.entity';
export * from './chat.repository';
export * from './turn-ledger';
export * from './queue-positions';
export * from './turn-feedback.entity';
export * from './turn-feedback';
export * from './chat-read.entity';
export * from './turn-activity';
export * from './turn-attachment';

import { ChatMessageEntity } from './chat-message.entity';
import { ChatSessionEntity } from './chat-session.entity';
import { ChatTurnEntity } from './chat-turn.entity';
import { TurnFeedbackEntity } from './turn-feedback.entity';
import { ChatReadEntity } from './chat-read.entity';

/** The chat entities, in the order of their foreign keys. */
export const CHAT_ENTITIES: Function[] = [
  ChatSessionEntity,
  ChatTurnEntity,
  ChatMessageEntity,
  TurnFeedbackEntity,
  ChatReadEntity,
];
