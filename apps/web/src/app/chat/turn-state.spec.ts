import { describe, expect, it } from 'vitest';
import { NO_SEQ, type ChatEvent, type ChatEventBody, type ChatMessageView } from '@corpus-chat/contracts';
import {
  applyChatEvent,
  hasGap,
  isTurnOver,
  newLiveTurn,
  partsOfMessage,
  reasoningOfMessage,
  turnText,
  verificationOfMessage,
  type LiveTurn,
} from './turn-state';

const CHAT = 'c1';
const TURN = 't1';
/** Event `n` of a chain: seq `n-0`, prev `(n-1)-0`. */
const ev = (n: number, body: ChatEventBody, turnId = TURN, prev = `${n - 1}-0`): ChatEvent =>
  ({
    chatId: CHAT,
    turnId,
    seq: `${n}-0`,
    prev,
    at: new Date(1_700_000_000_000 + n).toISOString(),
    ...body,
  }) as ChatEvent;
const reduce = (events: ChatEvent[], start: LiveTurn = newLiveTurn(CHAT, TURN)): LiveTurn =>
  events.reduce(applyChatEvent, start);

const search = { callId: 'k1', name: 'search_findings' as const };
const happyPath: ChatEvent[] = [
  ev(1, { type: 'turn.queued', position: 2 }),
  ev(2, { type: 'turn.started', workerId: 'w1', attempt: 1 }),
  ev(3, { type: 'tool.call', ...search, args: { text: 'SQL injection' } }),
  ev(4, {
    type: 'tool.result',
    ...search,
    ok: true,
    summary: '184 findings',
    data: { total: 184, returned: 10 },
  }),
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
      {
        kind: 'tool',
        call: {
          callId: 'k1',
          name: 'search_findings',
          args: { text: 'SQL injection' },
          state: 'running',
          summary: null,
          startedAt: happyPath[2]!.at,
        },
      },
    ]);

    const done = reduce(happyPath);
    expect(done.phase).toBe('done');
    expect(done.messageId).toBe('m2');
    expect(done.lastSeq).toBe('7-0');
    expect(done.parts.map((p) => p.kind)).toEqual(['tool', 'text']);
    expect(done.parts[0]).toMatchObject({
      call: { state: 'ok', summary: '184 findings', data: { total: 184, returned: 10 } },
    });
    expect(turnText(done)).toBe('**184** findings relate to SQL injection.');
    expect(isTurnOver(done)).toBe(true);
  });

  it('drops duplicates at or below the last seq (a replay overlapping the live stream)', () => {
    const once = reduce(happyPath.slice(0, 6));
    const twice = reduce([...happyPath.slice(0, 6), ...happyPath.slice(3, 6)]);
    expect(twice).toEqual(once);
    expect(turnText(twice)).toBe('**184** findings relate to SQL injection.');
  });

  it('drops an event whose prev it lacks and takes it from the replay after its last seq', () => {
    const [q, s, , , d1, d2] = happyPath;
    const early = reduce([q, s, d2]);
    expect(hasGap(early)).toBe(true);
    expect(early.lastSeq).toBe('2-0');
    expect(turnText(early)).toBe('');
    const healed = reduce(happyPath.slice(2, 6), early);
    expect(hasGap(healed)).toBe(false);
    expect(healed.lastSeq).toBe('6-0');
    expect(turnText(healed)).toBe('**184** findings relate to SQL injection.');
    expect(turnText(applyChatEvent(healed, d2))).toBe(turnText(healed));
    expect(d1.seq).toBe('5-0');
  });

  it('applies the first event of a chain Redis started again (it lost the turn’s events) at once', () => {
    const before = reduce(happyPath.slice(0, 5));
    const d2 = happyPath[5];
    const restarted = ev(900, { type: 'text.delta', text: 'after the restart.' }, TURN, NO_SEQ);
    const after = reduce(
      [d2, restarted, ev(901, { type: 'turn.error', code: 'WORKER_LOST', message: 'lost' })],
      before,
    );
    expect(hasGap(after)).toBe(false);
    expect(after.phase).toBe('error');
    expect(after.lastSeq).toBe('901-0');
    expect(turnText(after)).toBe('**184** findings relate to SQL injection.after the restart.');
  });

  it('shows a started turn waiting for a model slot as queued with its place until it runs again', () => {
    const started = reduce([
      ev(1, { type: 'turn.queued', position: 1 }),
      ev(2, { type: 'turn.started', workerId: 'w1', attempt: 1 }),
      ev(3, { type: 'tool.call', ...search, args: {} }),
    ]);
    // A late place in the worker queue does not send a running turn back.
    expect(reduce([ev(4, { type: 'turn.queued', position: 3 })], started).phase).toBe('running');
    const waiting = reduce([ev(4, { type: 'turn.queued', position: 2, modelSlot: true })], started);
    expect(waiting).toMatchObject({ phase: 'queued', queuePosition: 2 });
    expect(waiting.parts).toHaveLength(1);
    const resumed = reduce(
      [ev(5, { type: 'turn.progress', model: 'm', phase: 'prompt', tokens: 0, tokensPerSecond: null })],
      waiting,
    );
    expect(resumed).toMatchObject({ phase: 'running', queuePosition: null });
  });

  it('drops the partial answer of attempt 1 when the turn restarts as attempt 2', () => {
    const partial = reduce([
      ev(1, { type: 'turn.queued', position: 1 }),
      ev(2, { type: 'turn.started', workerId: 'w1', attempt: 1 }),
      ev(3, { type: 'tool.call', ...search, args: {} }),
      ev(4, { type: 'text.delta', text: 'Half an ans' }),
    ]);
    expect(turnText(partial)).toBe('Half an ans');
    const restarted = reduce(
      [
        ev(5, { type: 'turn.started', workerId: 'w2', attempt: 2 }),
        ev(6, { type: 'text.delta', text: 'Whole answer.' }),
      ],
      partial,
    );
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
      ev(2, {
        type: 'turn.error',
        code: 'MODEL_UNAVAILABLE',
        message: 'Model server http://x:11434/v1 refused the connection',
      }),
    ]);
    expect(failed.phase).toBe('error');
    expect(failed.error).toEqual({
      code: 'MODEL_UNAVAILABLE',
      message: 'Model server http://x:11434/v1 refused the connection',
    });
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
      ev(3, {
        type: 'tool.result',
        callId: 'k',
        name: 'finding_detail',
        ok: false,
        summary: 'id must be ≥ 1',
      }),
    ]);
    expect(t.parts[0]).toMatchObject({
      kind: 'tool',
      call: { state: 'failed', summary: 'id must be ≥ 1', args: { id: 0 } },
    });
  });
});

describe('text.reset', () => {
  const started = ev(1, { type: 'turn.started', workerId: 'w1', attempt: 1 });

  it('cuts the streamed prose back to `length` characters and the next delta continues from there', () => {
    const t = reduce([
      started,
      ev(2, { type: 'text.delta', text: 'The total is ' }),
      ev(3, { type: 'text.delta', text: '<think>let me guess' }),
      ev(4, { type: 'text.reset', length: 13, reason: 'reasoning' }),
      ev(5, { type: 'text.delta', text: '184.' }),
    ]);
    expect(t.parts).toEqual([{ kind: 'text', text: 'The total is 184.' }]);
  });

  it('counts across text parts separated by tool cards and keeps every tool card', () => {
    const before = reduce([
      started,
      ev(2, { type: 'text.delta', text: 'Let me look. ' }),
      ev(3, { type: 'tool.call', ...search, args: { text: 'SQL injection' } }),
      ev(4, {
        type: 'tool.result',
        ...search,
        ok: true,
        summary: '184 findings',
        data: { total: 184, returned: 5 },
      }),
      ev(5, { type: 'text.delta', text: 'Found 184. ' }),
      ev(6, { type: 'text.delta', text: '{"name": "count_findings"}' }),
    ]);
    expect(turnText(before)).toBe('Let me look. Found 184. {"name": "count_findings"}');

    // 13 + 11: the tool call written as text goes, the prose on both sides of the card stays.
    const cut = applyChatEvent(before, ev(7, { type: 'text.reset', length: 24, reason: 'tool_call' }));
    expect(cut.parts.map((p) => (p.kind === 'text' ? p.text : `[${p.call.callId}:${p.call.state}]`))).toEqual(
      ['Let me look. ', '[k1:ok]', 'Found 184. '],
    );

    // Into the first part: the second text part is dropped, the card stays after the kept prose.
    const deeper = applyChatEvent(cut, ev(8, { type: 'text.reset', length: 7, reason: 'reask' }));
    expect(deeper.parts.map((p) => (p.kind === 'text' ? p.text : `[${p.call.callId}]`))).toEqual([
      'Let me ',
      '[k1]',
    ]);

    // A new answer after the card starts its own text part, it is not glued to the text before it.
    const rewritten = applyChatEvent(deeper, ev(9, { type: 'text.delta', text: 'The exact total is 184.' }));
    expect(rewritten.parts.map((p) => (p.kind === 'text' ? p.text : `[${p.call.callId}]`))).toEqual([
      'Let me ',
      '[k1]',
      'The exact total is 184.',
    ]);
  });

  it('to 0 removes all prose and keeps the tool cards; a reset beyond the text changes nothing', () => {
    const t = reduce([
      started,
      ev(2, { type: 'tool.call', ...search, args: {} }),
      ev(3, { type: 'text.delta', text: 'The exact total is 84 findings.' }),
    ]);
    const emptied = applyChatEvent(t, ev(4, { type: 'text.reset', length: 0, reason: 'reask' }));
    expect(emptied.parts).toEqual([t.parts[0]]);
    const beyond = applyChatEvent(t, ev(4, { type: 'text.reset', length: 500, reason: 'reask' }));
    expect(beyond.parts).toEqual(t.parts);
  });

  it('applies a reset dropped behind a gap in order once replayed, after the deltas it cuts', () => {
    const reset = ev(3, { type: 'text.reset', length: 4, reason: 'reask' });
    const delta = ev(4, { type: 'text.delta', text: ' is 84.' });
    const early = reduce([started, reset, delta]);
    expect(turnText(early)).toBe('');
    const healed = reduce([ev(2, { type: 'text.delta', text: 'Total of everything' }), reset, delta], early);
    expect(turnText(healed)).toBe('Tota is 84.');
  });
});

describe('verification', () => {
  it('is null while the turn runs and carries the check of turn.done once it ends', () => {
    const running = reduce(happyPath.slice(0, 6));
    expect(running.verification).toBeNull();
    const verification = { checked: 2, unsupported: ['84', '1,204'], reasked: true };
    const done = applyChatEvent(running, ev(7, { type: 'turn.done', messageId: 'm2', verification }));
    expect(done.verification).toEqual(verification);
    expect(reduce(happyPath).verification).toBeNull();
  });

  it('is read from a stored message, with its reasoning (blank reasoning counts as none)', () => {
    const message: ChatMessageView = {
      id: 'm2',
      turnId: TURN,
      role: 'assistant',
      content: 'The exact total is 84 findings.',
      status: 'complete',
      createdAt: '2026-01-01T00:00:00.000Z',
      metadata: {
        toolCalls: [],
        verification: { checked: 1, unsupported: ['84'] },
        reasoning: 'The tool said 184.',
      },
    };
    expect(verificationOfMessage(message)).toEqual({ checked: 1, unsupported: ['84'] });
    expect(reasoningOfMessage(message)).toBe('The tool said 184.');
    const plain = { ...message, metadata: { toolCalls: [], reasoning: ' \n ' } };
    expect(verificationOfMessage(plain)).toBeNull();
    expect(reasoningOfMessage(plain)).toBeNull();
    expect(verificationOfMessage({ ...message, role: 'user', metadata: {} })).toBeNull();
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
      metadata: {
        toolCalls: [
          {
            callId: 'k1',
            name: 'search_findings',
            args: { text: 'sql' },
            ok: true,
            summary: 's',
            data: { total: 184, returned: 10 },
          },
        ],
      },
    };
    expect(partsOfMessage(message)).toEqual([
      {
        kind: 'tool',
        call: {
          callId: 'k1',
          name: 'search_findings',
          args: { text: 'sql' },
          state: 'ok',
          summary: 's',
          data: { total: 184, returned: 10 },
        },
      },
      { kind: 'text', text: '184 findings.' },
    ]);
    expect(partsOfMessage({ ...message, metadata: {}, content: '' })).toEqual([]);
  });
});
