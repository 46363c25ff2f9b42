import type { ChatEventBody } from '@corpus-chat/contracts';
import { ProgressMeter } from './progress-meter';

type Progress = Extract<ChatEventBody, { type: 'turn.progress' }>;

const content = (text: string) => ({ choices: [{ index: 0, delta: { content: text } }] });
const reasoning = (text: string) => ({ choices: [{ index: 0, delta: { reasoning_content: text } }] });

describe('ProgressMeter', () => {
  it('counts a token per streamed chunk and reports at most once a second, at once on a new phase', async () => {
    const sent: Progress[] = [];
    let now = 0;
    const meter = new ProgressMeter(
      async (e) => void sent.push(e),
      () => now,
    );
    // llama.cpp reading a long prompt (with `return_progress`): no token yet.
    await meter.chunk('qwen3', { choices: [], prompt_progress: { total: 4000, cache: 0, processed: 1000 } });
    now = 400;
    await meter.chunk('qwen3', { choices: [], prompt_progress: { total: 4000, cache: 0, processed: 2000 } });
    now = 1000;
    await meter.chunk('qwen3', reasoning('Let'));
    for (let i = 1; i <= 9; i++) {
      now += 100;
      await meter.chunk('qwen3', reasoning(' me'));
    }
    await meter.chunk('qwen3', content('There'));
    await meter.chunk('qwen3', { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
    now = 3000;
    await meter.chunk('qwen3', content(' are'));

    expect(sent).toEqual([
      {
        type: 'turn.progress',
        model: 'qwen3',
        phase: 'prompt',
        tokens: 0,
        tokensPerSecond: null,
        prompt: { processed: 1000, total: 4000 },
      },
      { type: 'turn.progress', model: 'qwen3', phase: 'reasoning', tokens: 1, tokensPerSecond: null },
      { type: 'turn.progress', model: 'qwen3', phase: 'answer', tokens: 11, tokensPerSecond: 12.2 },
      { type: 'turn.progress', model: 'qwen3', phase: 'answer', tokens: 12, tokensPerSecond: 6 },
    ]);
  });
});
