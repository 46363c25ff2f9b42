import { describe, expect, it } from 'vitest';
import type { ChatEvent, ChatEventBody, ChatMessageView } from '@corpus-chat/contracts';
import { applyChatEvent, hasGap, isTurnOver, newLiveTurn, partsOfMessage, turnText, type LiveTurn } from './turn-state';

const CHAT = 'c1';
const TURN = 't1';
const ev = (seq: number, body: ChatEventBody, turnId = TURN): ChatEvent =>
  ({ chatId: CHAT, turnId, seq, at: new Date(1_700_000_000_000 + seq).toISOString(), ...body }) as ChatEvent;
const reduce = (events: ChatEvent[], start: LiveTurn = newLiveTurn(CHAT, TURN)): LiveTurn => events.reduce(applyChatEvent, start);

const search = { callId: 'k1', name: 'search_findings' as const };
const happyPath: ChatEvent[] = [
  ev(1, { type: 'turn.queued', position: 2 }),
  ev(2, { type: 'turn.started', workerId: 'w1', attempt: 1 }),
  ev(3, { type: 'tool.call', ...search, args: { text: 'SQL injection' } }),
  ev(4, { type: 'tool.result', ...search, ok: true, summary: '184 findings', data: { total: 184, returned: 10 } }),
  ev(5, { type: 'text.delta', text: '**184** findings ' }),
  ev(6, { type: 'text.delta', text: 'relate to SQL injection.' }),
  ev(7, { type: 'turn.done', messageId: 'm2' }),
];

describe('applyChatEvent', () => {
  it('goes queued (with position) → running → streamed text with the tool card in arrival order → done', () => {
    const queued = reduce(happyPath.slice(0, 1));
    expect(queued.phase).toBe('queued');
    expect(queued.queuePosition).toBe(2);

    const started = reduce(happyPath.slice(0, 2));
    expect(started.phase).toBe('running');
    expect(started.queuePosition).toBeNull();

    const toolRunning = reduce(happyPath.slice(0, 3));
    expect(toolRunning.parts).toEqual([
      { kind: 'tool', call: { callId: 'k1', name: 'search_findings', args: { text: 'SQL injection' }, state: 'running', summary: null } },
    ]);

    const done = reduce(happyPath);
    expect(done.phase).toBe('done');
    expect(done.messageId).toBe('m2');
    expect(done.lastSeq).toBe(7);
    expect(done.parts.map((p) => p.kind)).toEqual(['tool', 'text']);
    expect(done.parts[0]).toMatchObject({ call: { state: 'ok', summary: '184 findings', data: { total: 184, returned: 10 } } });
    expect(turnText(done)).toBe('**184** findings relate to SQL injection.');
    expect(isTurnOver(done)).toBe(true);
  });

  it('drops duplicates at or below the last seq (a replay overlapping the live stream)', () => {
    const once = reduce(happyPath.slice(0, 6));
    const twice = reduce([...happyPath.slice(0, 6), ...happyPath.slice(3, 6)]);
    expect(twice).toEqual(once);
    expect(turnText(twice)).toBe('**184** findings relate to SQL injection.');
  });

  it('parks an event that arrives ahead of a gap and applies it in order once the gap fills', () => {
    const [q, s, , , d1, d2] = happyPath;
    const early = reduce([q, s, d2]);
    expect(hasGap(early)).toBe(true);
    expect(turnText(early)).toBe('');
    const healed = reduce([happyPath[2], happyPath[3], d1], early);
    expect(hasGap(healed)).toBe(false);
    expect(healed.lastSeq).toBe(6);
    expect(turnText(healed)).toBe('**184** findings relate to SQL injection.');
    // The parked event is not applied twice when it is replayed again.
    expect(turnText(applyChatEvent(healed, d2))).toBe('**184** findings relate to SQL injection.');
  });

  it('drops the partial answer of attempt 1 when the turn restarts as attempt 2', () => {
    const partial = reduce([
      ev(1, { type: 'turn.queued', position: 1 }),
      ev(2, { type: 'turn.started', workerId: 'w1', attempt: 1 }),
      ev(3, { type: 'tool.call', ...search, args: {} }),
      ev(4, { type: 'text.delta', text: 'Half an ans' }),
    ]);
    expect(turnText(partial)).toBe('Half an ans');
    const restarted = reduce([ev(5, { type: 'turn.started', workerId: 'w2', attempt: 2 }), ev(6, { type: 'text.delta', text: 'Whole answer.' })], partial);
    expect(restarted.attempt).toBe(2);
    expect(restarted.parts).toEqual([{ kind: 'text', text: 'Whole answer.' }]);
  });

  it('keeps the partial text on cancel and settles running tool cards (no spinner left behind)', () => {
    const cancelled = reduce([
      ev(1, { type: 'turn.started', workerId: 'w1', attempt: 1 }),
      ev(2, { type: 'text.delta', text: 'Counting' }),
      ev(3, { type: 'tool.call', ...search, args: {} }),
      ev(4, { type: 'turn.cancelled', messageId: 'm9' }),
    ]);
    expect(cancelled.phase).toBe('cancelled');
    expect(cancelled.messageId).toBe('m9');
    expect(turnText(cancelled)).toBe('Counting');
    expect(cancelled.parts[1]).toMatchObject({ kind: 'tool', call: { state: 'failed' } });
  });

  it('records the error of turn.error and ignores anything after a terminal event', () => {
    const failed = reduce([
      ev(1, { type: 'turn.started', workerId: 'w1', attempt: 1 }),
      ev(2, { type: 'turn.error', code: 'MODEL_UNAVAILABLE', message: 'Model server http://x:11434/v1 refused the connection' }),
    ]);
    expect(failed.phase).toBe('error');
    expect(failed.error).toEqual({ code: 'MODEL_UNAVAILABLE', message: 'Model server http://x:11434/v1 refused the connection' });
    expect(applyChatEvent(failed, ev(3, { type: 'text.delta', text: 'late' }))).toBe(failed);
  });

  it('ignores events of another turn', () => {
    const turn = newLiveTurn(CHAT, TURN);
    expect(applyChatEvent(turn, ev(1, { type: 'text.delta', text: 'x' }, 'other'))).toBe(turn);
  });

  it('marks a failed tool call with a cross and its summary', () => {
    const t = reduce([
      ev(1, { type: 'turn.started', workerId: 'w', attempt: 1 }),
      ev(2, { type: 'tool.call', callId: 'k', name: 'finding_detail', args: { id: 0 } }),
      ev(3, { type: 'tool.result', callId: 'k', name: 'finding_detail', ok: false, summary: 'id must be ≥ 1' }),
    ]);
    expect(t.parts[0]).toMatchObject({ kind: 'tool', call: { state: 'failed', summary: 'id must be ≥ 1', args: { id: 0 } } });
  });
});

describe('partsOfMessage', () => {
  it('redraws the stored tool cards before the stored prose', () => {
    const message: ChatMessageView = {
      id: 'm2',
      turnId: TURN,
      role: 'assistant',
      content: '184 findings.',
      status: 'complete',
      createdAt: '2026-01-01T00:00:00.000Z',
      metadata: { toolCalls: [{ callId: 'k1', name: 'search_findings', args: { text: 'sql' }, ok: true, summary: 's', data: { total: 184, returned: 10 } }] },
    };
    expect(partsOfMessage(message)).toEqual([
      { kind: 'tool', call: { callId: 'k1', name: 'search_findings', args: { text: 'sql' }, state: 'ok', summary: 's', data: { total: 184, returned: 10 } } },
      { kind: 'text', text: '184 findings.' },
    ]);
    expect(partsOfMessage({ ...message, metadata: {}, content: '' })).toEqual([]);
  });
});
