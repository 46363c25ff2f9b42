import type { StoredToolCall } from '@corpus-chat/contracts';
import type { RunnerEvent } from '@corpus-chat/server-core';
import type { PartialAnswer } from './turn-errors';

/**
 * Gathers what a turn streamed (text deltas, tool calls with their results), so a cancelled or
 * failed turn stores the text so far and the tool cards it already showed.
 */
export class AnswerCollector {
  private text = '';
  private readonly calls = new Map<string, StoredToolCall>();

  /** Records one event the runner emitted. */
  add(event: RunnerEvent): void {
    switch (event.type) {
      case 'text.delta':
        this.text += event.text;
        break;
      case 'text.reset':
        this.text = this.text.slice(0, event.length);
        break;
      case 'tool.call':
        this.calls.set(event.callId, {
          callId: event.callId,
          name: event.name,
          args: event.args,
          ok: false,
          summary: '',
        });
        break;
      case 'tool.result': {
        const call = this.calls.get(event.callId) ?? {
          callId: event.callId,
          name: event.name,
          args: null,
          ok: false,
          summary: '',
        };
        this.calls.set(event.callId, {
          ...call,
          ok: event.ok,
          summary: event.summary,
          ...(event.data ? { data: event.data } : {}),
        });
        break;
      }
    }
  }

  /** The answer so far: streamed text and the tool calls seen. */
  partial(): PartialAnswer {
    return { content: this.text, metadata: { toolCalls: [...this.calls.values()] } };
  }
}
