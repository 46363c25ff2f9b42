/** One tool-call fragment of a streamed chat-completions chunk (`choices[0].delta.tool_calls[]`). */
export interface ToolCallDelta {
  index?: number | null;
  id?: string | null;
  type?: string | null;
  function?: { name?: string | null; arguments?: string | null } | null;
}

/** A tool call put back together from its fragments. `arguments` is the raw JSON text the model sent. */
export interface AssembledToolCall {
  index: number;
  id: string;
  name: string;
  arguments: string;
}

/**
 * Reassembles streamed tool calls. OpenAI-compatible servers send a call's `id` and `name` in its
 * first fragment and its `arguments` JSON split over any number of later fragments, keyed by
 * `index`; several calls may interleave. Servers that omit `index` are handled by `id`, or by
 * appending to the latest call. Calls without an id get `call_<index>`.
 */
export class ToolCallAssembler {
  private readonly slots = new Map<number, AssembledToolCall>();
  private latest: AssembledToolCall | undefined;

  add(deltas: ToolCallDelta[] | null | undefined): void {
    for (const d of deltas ?? []) {
      const slot = this.slotFor(d);
      if (d.id && !slot.id) slot.id = d.id;
      const name = d.function?.name;
      if (name && slot.name !== name) slot.name += name;
      if (d.function?.arguments) slot.arguments += d.function.arguments;
      this.latest = slot;
    }
  }

  private slotFor(d: ToolCallDelta): AssembledToolCall {
    if (d.index != null) return this.slots.get(d.index) ?? this.open(d.index);
    if (d.id) {
      for (const s of this.slots.values()) if (s.id === d.id) return s;
      return this.open(this.slots.size);
    }
    return this.latest ?? this.open(this.slots.size);
  }

  private open(index: number): AssembledToolCall {
    const slot = { index, id: '', name: '', arguments: '' };
    this.slots.set(index, slot);
    return slot;
  }

  /** The calls in index order. */
  calls(): AssembledToolCall[] {
    return [...this.slots.values()]
      .sort((a, b) => a.index - b.index)
      .map((c) => ({ ...c, id: c.id || `call_${c.index}`, name: c.name.trim() }));
  }

  get size(): number {
    return this.slots.size;
  }
}
