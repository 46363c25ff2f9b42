import type { EndedTurn } from '@corpus-chat/persistence';
import { turnWebhookPayload } from './turn-webhook-payload';

const turn = (over: Partial<EndedTurn>): EndedTurn => ({
  turnId: 't1',
  chatId: 'c1',
  ownerId: 'o1',
  title: 'SQL injection',
  status: 'complete',
  content: 'There are 3.',
  errorMessage: null,
  ...over,
});
const at = new Date('2026-12-07T08:00:00Z');

describe('turnWebhookPayload', () => {
  it('carries the thread, the turn, the answer and an absolute link under the first public origin', () => {
    expect(turnWebhookPayload(turn({}), 'https://chat.example.org/, https://other.example.org', at)).toEqual({
      type: 'turn.done',
      timestamp: '2026-12-07T08:00:00.000Z',
      data: {
        threadId: 'c1',
        threadTitle: 'SQL injection',
        turnId: 't1',
        text: 'There are 3.',
        link: 'https://chat.example.org/chat/c1',
      },
    });
  });

  it('keeps the first 500 characters (not UTF-16 halves) and links by path without an origin', () => {
    const long = '😀'.repeat(600);
    const { data } = turnWebhookPayload(turn({ content: long }), '', at);
    expect([...data.text]).toHaveLength(500);
    expect(data.link).toBe('/chat/c1');
  });

  it('says why a turn failed or was stopped', () => {
    const failed = turnWebhookPayload(
      turn({ status: 'error', content: 'partial', errorMessage: 'The model timed out.' }),
      '',
      at,
    );
    expect(failed).toMatchObject({ type: 'turn.error', data: { text: 'The model timed out.' } });
    const stopped = turnWebhookPayload(turn({ status: 'cancelled', content: 'Half an' }), '', at);
    expect(stopped).toMatchObject({
      type: 'turn.cancelled',
      data: { text: 'The turn was stopped before its answer was complete.\n\nHalf an' },
    });
  });
});
