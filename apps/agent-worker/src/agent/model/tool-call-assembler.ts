import { isRecord, tryJson } from './tool-call-json';

/** One tool-call fragment of a streamed chat-completions chunk (`choices[0].delta.tool_calls[]`). */
export interface ToolCallDelta {
  index?: number | null;
  id?: string | null;
  type?: string | null;
  /** `arguments` is JSON text; some proxies and Ollama-native shapes send the object itself. */
  function?: { name?: string | null; arguments?: string | Record<string, unknown> | null } | null;
}

/** A reassembled tool call; `id` '' when the server sent none, `arguments` the JSON text (`{}` if none). */
export interface AssembledToolCall {
  index: number;
  id: string;
  name: string;
  arguments: string;
}

interface Slot {
  /** The server's `index`, or the opening order for fragments without one. */
  key: number;
  seq: number;
  id: string;
  name: string;
  arguments: string;
}

/**
 * Reassembles streamed tool calls keyed by `index`. Some vLLM parsers and proxies give every call
 * `index: 0`, so a new `id`, or a `name` after a complete call, also starts a call. Missing ids stay ''.
 */
export class ToolCallAssembler {
  private readonly slots: Slot[] = [];
  private readonly current = new Map<number, Slot>();
  private latest: Slot | undefined;

  /** Adds the fragments of one chunk; fragments that are not objects are ignored. */
  add(deltas: readonly ToolCallDelta[] | null | undefined): void {
    if (!Array.isArray(deltas)) return;
    for (const d of deltas as unknown[]) {
      if (!d || typeof d !== 'object') continue;
      const frag = d as ToolCallDelta;
      const fn = frag.function && typeof frag.function === 'object' ? frag.function : undefined;
      const id = typeof frag.id === 'string' ? frag.id : '';
      const name = typeof fn?.name === 'string' ? fn.name : '';
      const slot = this.slotFor(frag.index, id, name);
      if (id && !slot.id) slot.id = id;
      if (name && slot.name !== name) slot.name += name;
      slot.arguments += argumentsText(fn?.arguments);
      this.latest = slot;
    }
  }

  private slotFor(index: unknown, id: string, name: string): Slot {
    const key = typeof index === 'number' && Number.isInteger(index) ? index : undefined;
    let slot: Slot | undefined;
    if (key !== undefined) slot = this.current.get(key);
    else if (id) slot = this.slots.find((s) => s.id === id) ?? this.open(undefined);
    else slot = this.latest;
    if (!slot) return this.open(key);
    if (id && slot.id === id) return slot;
    const otherId = id !== '' && slot.id !== '' && slot.id !== id;
    const nextCall = name !== '' && slot.name !== '' && tryJson(slot.arguments) !== undefined;
    return otherId || nextCall ? this.open(key) : slot;
  }

  private open(key: number | undefined): Slot {
    const slot: Slot = {
      key: key ?? this.slots.length,
      seq: this.slots.length,
      id: '',
      name: '',
      arguments: '',
    };
    this.slots.push(slot);
    if (key !== undefined) this.current.set(key, slot);
    return slot;
  }

  /** The calls in index order (calls sharing an index in arrival order), numbered from 0. */
  calls(): AssembledToolCall[] {
    return [...this.slots]
      .sort((a, b) => a.key - b.key || a.seq - b.seq)
      .map((c, i) => ({
        index: i,
        id: c.id,
        name: c.name.trim(),
        arguments: normaliseArguments(c.arguments),
      }));
  }
}

function argumentsText(args: unknown): string {
  if (typeof args === 'string') return args;
  if (args && typeof args === 'object') return JSON.stringify(args);
  return '';
}

/**
 * Arguments as the tool layer takes them: `{}` for none, a JSON object that a proxy encoded twice
 * (a JSON string holding the object) unwrapped, anything else as sent.
 */
function normaliseArguments(text: string): string {
  if (!text.trim()) return '{}';
  const v = tryJson(text);
  // Not JSON is kept as sent: the tool layer reports it to the model.
  return typeof v === 'string' && isRecord(tryJson(v)) ? v : text;
}
