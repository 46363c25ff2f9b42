import type {
  ActiveTurnView,
  ChatMessageView,
  ChatSummaryView,
  TurnFeedbackView,
} from '@corpus-chat/contracts';
import type { ChatMessageEntity, ChatSummaryRow } from '@corpus-chat/persistence';

/** A thread's list entry. */
export function toChatSummaryView(row: ChatSummaryRow): ChatSummaryView {
  const { chat, activeTurn } = row;
  const active: ActiveTurnView | null = activeTurn
    ? { turnId: activeTurn.turnId, status: activeTurn.status }
    : null;
  return {
    id: chat.id,
    title: chat.title,
    archived: chat.archived,
    messageCount: row.messageCount,
    lastModel: chat.lastModel,
    activeTurn: active,
    unread: row.unread,
    createdAt: chat.createdAt.toISOString(),
    updatedAt: chat.updatedAt.toISOString(),
  };
}

/** A stored message as the API shows it; an answer carries the owner's feedback on its turn, if any. */
export function toChatMessageView(m: ChatMessageEntity, feedback?: TurnFeedbackView): ChatMessageView {
  return {
    ...(feedback && m.role === 'assistant' ? { feedback } : {}),
    id: m.id,
    turnId: m.turnId,
    role: m.role,
    content: m.content,
    status: m.status,
    metadata: m.metadata,
    createdAt: m.createdAt.toISOString(),
  };
}
