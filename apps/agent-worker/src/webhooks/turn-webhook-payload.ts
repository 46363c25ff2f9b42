import { WEBHOOK_TEXT_CHARS, type WebhookEventType, type WebhookPayload } from '@corpus-chat/contracts';
import type { EndedTurn } from '@corpus-chat/corpus-queries';

const EVENT_OF_STATUS: Record<EndedTurn['status'], WebhookEventType> = {
  complete: 'turn.done',
  error: 'turn.error',
  cancelled: 'turn.cancelled',
};

/**
 * The body every endpoint gets for an ended turn: the answer's first characters, or the error's
 * message, or the cancel's reason (the operator stopped it; its partial text follows when there is
 * some). `publicOrigin`: the first of `PUBLIC_ORIGIN`; without one the link is the web app's path.
 */
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
