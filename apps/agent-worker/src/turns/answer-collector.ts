import type { StoredToolCall } from '@corpus-chat/contracts';
import type { PartialAnswer, RunnerEvent } from '@corpus-chat/server-core';

/**
 * Gathers what a turn streamed (text deltas, tool calls with their results), so a cancelled or
 * failed turn stores the text so far and the tool cards it already showed.
 */
export class AnswerCollector {
  private text = '';
  private readonly calls = new Map<string, StoredToolCall>();

  add(event: RunnerEvent): void {
    switch (event.type) {
      case 'text.delta':
        this.text += event.text;
        break;
      case 'text.reset':
        this.text = this.text.slice(0, event.length);
        break;
      case 'tool.call': {
        const { callId, name, args } = event;
        this.calls.set(callId, { callId, name, args, ok: false, summary: '' });
        break;
      }
      case 'tool.result': {
        const { callId, name, ok, summary, data } = event;
        const call = this.calls.get(callId) ?? { callId, name, args: null };
        this.calls.set(callId, { ...call, ok, summary, ...(data ? { data } : {}) });
        break;
      }
    }
  }

  partial(): PartialAnswer {
    return { content: this.text, metadata: { toolCalls: [...this.calls.values()] } };
  }
}
