import { WEBHOOK_TEXT_CHARS, type WebhookEventType, type WebhookPayload } from '@corpus-chat/contracts';
import type { EndedTurn } from '@corpus-chat/persistence';

const EVENT_OF_STATUS: Record<EndedTurn['status'], WebhookEventType> = {
  complete: 'turn.done',
  error: 'turn.error',
  cancelled: 'turn.cancelled',
};

/** The body for an ended turn: the answer's start, the error, or the cancel; links from `PUBLIC_ORIGIN`. */
export function turnWebhookPayload(turn: EndedTurn, publicOrigin: string, now = new Date()): WebhookPayload {
  const origin = publicOrigin.split(',')[0]?.trim().replace(/\/+$/, '') ?? '';
  let text: string;
  if (turn.status === 'complete') text = turn.content;
  else if (turn.status === 'error') text = turn.errorMessage ?? 'The turn failed.';
  else
    text = ['The turn was stopped before its answer was complete.', turn.content]
      .filter(Boolean)
      .join('\n\n');
  return {
    type: EVENT_OF_STATUS[turn.status],
    timestamp: now.toISOString(),
    data: {
      threadId: turn.chatId,
      threadTitle: turn.title,
      turnId: turn.turnId,
      text: [...text].slice(0, WEBHOOK_TEXT_CHARS).join(''),
      link: `${origin}/chat/${turn.chatId}`,
    },
  };
}
