import { randomBytes } from 'node:crypto';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { scanToolMarkup } from './text-tool-calls';
import { isRecord, tryJson } from './tool-call-json';
import { ToolCallAssembler, type AssembledToolCall, type ToolCallDelta } from './tool-call-assembler';

/** What the operator may see now: safe answer text, or a cut of this step's shown text to `length`. */
export type DecoderOutput =
  { kind: 'text'; text: string } | { kind: 'reset'; length: number; reason: 'reasoning' | 'tool_call' };

/** What one model step produced, once its stream ended. */
export interface DecodedStep {
  /** The step's answer text without markup or reasoning, trimmed: exactly what was shown after resets. */
  text: string;
  /** The step's reasoning: `reasoning_content` / `reasoning` deltas, then `<think>` blocks (and gpt-oss analysis), joined by blank lines. */
  reasoning: string;
  /**
   * Native calls (in index order), then calls written as text (in text order), numbered from 0.
   * `id`: the server's, or one from the decoder's `newId` when it sent none.
   */
  toolCalls: AssembledToolCall[];
  /** The last non-null `finish_reason`; null when the stream ended without one. */
  finishReason: string | null;
  /** Token counts from a chunk's `usage` (sent with `stream_options.include_usage`). */
  usage?: { promptTokens?: number; completionTokens?: number };
}

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** 9 random alphanumerics: a tool-call id every chat template accepts (Mistral's demand exactly this). */
export function randomToolCallId(): string {
  return Array.from(randomBytes(9), (b) => ID_ALPHABET[b % ID_ALPHABET.length]).join('');
}

/**
 * Decodes one chat-completions stream in any dialect: reasoning fields and `<think>` blocks,
 * `delta.tool_calls` or calls in markup (`scanToolMarkup`), and answer text released except where
 * markup may start. `push` returns what to show now, `end` the step. Odd chunks are ignored. Each
 * push decodes only the content since nothing was pending, so time stays linear.
 */
export class StepDecoder {
  /** The step's content is `settledRaw + tail`; the first part is decoded for good (no markup pending, no think block open): */
  private settledRaw = '';
  private tail = '';
  /** …its answer text, whether that has non-blank characters, its reasoning, whether it held a think tag. */
  private settledText = '';
  private settledStarted = false;
  private settledThinking: string[] = [];
  private sawThinkTag = false;
  /** The blanks ending the settled text, not shown until something follows them. */
  private unshown = '';
  /** Characters of `unshown` + the unsettled answer text already shown or skipped as leading blanks. */
  private consumed = 0;
  private shown = '';
  private loneThinkClose = false;
  private fieldReasoning = '';
  private readonly assembler = new ToolCallAssembler();
  private finishReason: string | null = null;
  private usage: DecodedStep['usage'];

  /** `newId`: ids for id-less calls, unique within a turn, ≤ 9 alphanumerics for Mistral templates. */
  constructor(private readonly newId: () => string = randomToolCallId) {}

  push(chunk: ChatCompletionChunk): DecoderOutput[] {
    if (!isRecord(chunk)) return [];
    this.readUsage(chunk['usage']);
    const choices = Array.isArray(chunk['choices']) ? (chunk['choices'] as unknown[]).filter(isRecord) : [];
    const choice = choices.find((c) => (c['index'] ?? 0) === 0) ?? choices[0];
    if (!choice) return [];
    if (typeof choice['finish_reason'] === 'string' && choice['finish_reason'])
      this.finishReason = choice['finish_reason'];
    const delta = isRecord(choice['delta']) ? choice['delta'] : {};
    // vLLM may send both names for the same text; llama.cpp and DeepSeek send the first, Ollama the second.
    const reasoning = [delta['reasoning_content'], delta['reasoning']].find(
      (r) => typeof r === 'string' && r !== '',
    );
    if (typeof reasoning === 'string') this.fieldReasoning += reasoning;
    if (Array.isArray(delta['tool_calls'])) this.assembler.add(delta['tool_calls'] as ToolCallDelta[]);
    const piece = contentText(delta['content']);
    if (!piece) return [];
    this.tail += piece;
    const out: DecoderOutput[] = [];
    const d = this.decode(false);
    this.cutForLoneClose(d.loneClose, out);
    const pending = this.unshown + d.scan.text;
    const resolved = this.unshown.length + (d.scan.heldFrom ?? d.scan.text.length);
    if (resolved > this.consumed) {
      let more = pending.slice(this.consumed, resolved);
      if (!this.shown) {
        this.consumed += more.length - more.trimStart().length;
        more = more.trimStart();
      }
      const visible = more.trimEnd();
      if (visible) {
        out.push({ kind: 'text', text: visible });
        this.shown += visible;
        this.consumed += visible.length;
      }
    }
    if (d.scan.heldFrom === null && !d.scan.calls.length && !d.open) {
      this.settledRaw += this.tail;
      this.tail = '';
      this.settledText += d.scan.text;
      this.settledStarted ||= /\S/.test(d.scan.text);
      this.settledThinking = d.thinking;
      this.sawThinkTag ||= d.tagged;
      this.unshown = pending.slice(this.consumed);
      this.consumed = 0;
    }
    return out;
  }

  end(): { out: DecoderOutput[]; step: DecodedStep } {
    const out: DecoderOutput[] = [];
    const d = this.decode(true);
    this.cutForLoneClose(d.loneClose, out);
    const kept =
      d.scan.settledKept === undefined
        ? this.settledText + d.scan.text
        : this.settledText.slice(0, d.scan.settledKept);
    const answer = kept.trim();
    if (!answer.startsWith(this.shown)) {
      let keep = 0;
      while (keep < this.shown.length && this.shown[keep] === answer[keep]) keep++;
      out.push({ kind: 'reset', length: keep, reason: 'tool_call' });
      this.shown = this.shown.slice(0, keep);
    }
    if (answer.length > this.shown.length) {
      out.push({ kind: 'text', text: answer.slice(this.shown.length) });
      this.shown = answer;
    }
    const native = this.assembler.calls();
    const seen = new Set(native.map((c) => callKey(c.name, c.arguments)));
    const fromText = d.scan.calls.filter((c) => !seen.has(callKey(c.name, c.arguments)));
    const toolCalls = [...native, ...fromText.map((c) => ({ ...c, id: '' }))].map((c, i) => ({
      ...c,
      index: i,
      id: c.id || this.newId(),
    }));
    const reasoning = [this.fieldReasoning, ...d.thinking]
      .map((r) => r.trim())
      .filter(Boolean)
      .join('\n\n');
    const step: DecodedStep = { text: this.shown, reasoning, toolCalls, finishReason: this.finishReason };
    if (this.usage) step.usage = this.usage;
    return { out, step };
  }

  /** The first lone `</think>` turns all before it into reasoning: what was shown of it is cut. */
  private cutForLoneClose(loneClose: boolean, out: DecoderOutput[]): void {
    if (!loneClose || this.loneThinkClose) return;
    this.loneThinkClose = true;
    if (this.shown) out.push({ kind: 'reset', length: 0, reason: 'reasoning' });
    this.shown = '';
    this.settledText = '';
    this.settledStarted = false;
    this.unshown = '';
    this.consumed = 0;
  }

  /** Decodes the content after the settled part (all of it when a lone `</think>` turns up there). */
  private decode(final: boolean) {
    const split = splitThink(harmonyAsThink(this.tail, final), !this.sawThinkTag);
    const thinking = split.loneClose
      ? [this.settledRaw + split.thinking[0], ...split.thinking.slice(1)]
      : [...this.settledThinking, ...split.thinking];
    const settled = split.loneClose
      ? { started: false, text: '' }
      : { started: this.settledStarted, text: this.settledText };
    const tagged = split.loneClose || split.thinking.length > 0;
    return {
      thinking,
      tagged,
      loneClose: split.loneClose,
      open: split.open,
      scan: scanToolMarkup(split.answer, final, settled),
    };
  }

  private readUsage(usage: unknown): void {
    if (!isRecord(usage)) return;
    const u: NonNullable<DecodedStep['usage']> = {};
    if (typeof usage['prompt_tokens'] === 'number') u.promptTokens = usage['prompt_tokens'];
    if (typeof usage['completion_tokens'] === 'number') u.completionTokens = usage['completion_tokens'];
    if (u.promptTokens !== undefined || u.completionTokens !== undefined) this.usage = u;
  }
}

/**
 * Splits `<think>…</think>` blocks out of the content. A lone first `</think>` (R1 distills, Qwen3)
 * makes all before it reasoning unless `loneAllowed` is false; an unclosed block is reasoning.
 */
export function splitThink(
  content: string,
  loneAllowed = true,
): { answer: string; thinking: string[]; loneClose: boolean; open: boolean } {
  const thinking: string[] = [];
  let rest = content;
  const close = content.indexOf('</think>');
  const first = content.indexOf('<think>');
  const loneClose = loneAllowed && close >= 0 && (first < 0 || close < first);
  if (loneClose) {
    thinking.push(content.slice(0, close));
    rest = content.slice(close + '</think>'.length);
  }
  let answer = '';
  for (;;) {
    const o = rest.indexOf('<think>');
    if (o < 0) {
      answer += rest.replaceAll('</think>', '');
      return { answer, thinking, loneClose, open: false };
    }
    answer += rest.slice(0, o).replaceAll('</think>', '');
    const c = rest.indexOf('</think>', o + '<think>'.length);
    if (c < 0) {
      thinking.push(rest.slice(o + '<think>'.length));
      return { answer, thinking, loneClose, open: true };
    }
    thinking.push(rest.slice(o + '<think>'.length, c));
    rest = rest.slice(c + '</think>'.length);
  }
}

/**
 * gpt-oss (harmony) channel markers left in the content, as think tags: analysis is reasoning,
 * final the answer; commentary calls are `scanToolMarkup`'s.
 */
function harmonyAsThink(content: string, final: boolean): string {
  if (!content.includes('<|')) return content;
  return (
    content
      // A recipient in the role header (`<|start|>assistant to=functions.X<|channel|>commentary json`) is a call's.
      .replace(/<\|start\|>assistant ?to=/g, '<|channel|>commentary to=')
      // Kept at the end while streaming: a recipient may follow (scanToolMarkup holds it).
      .replace(final ? /<\|start\|>assistant/g : /<\|start\|>assistant(?!(?: t?o?)?$)/g, '')
      .replace(/<\|channel\|>analysis<\|message\|>([\s\S]*?)<\|end\|>/g, '<think>$1</think>')
      .replaceAll('<|channel|>analysis<|message|>', '<think>')
      .replaceAll('<|channel|>final<|message|>', '</think>')
      .replaceAll('<|end|>', '')
      .replaceAll('<|return|>', '')
  );
}

/** `content` as text: a string, or the text parts of a content-part list. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p) => (isRecord(p) && typeof p['text'] === 'string' ? p['text'] : '')).join('');
}

function callKey(name: string, args: string): string {
  const v = tryJson(args);
  return `${name}\u0000${v === undefined ? args : JSON.stringify(v)}`;
}
