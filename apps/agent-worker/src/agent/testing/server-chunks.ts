/**
 * Stream chunks as real OpenAI-compatible servers send them (vLLM, llama-server, Ollama), and the
 * step decoder's output replayed over HTTP through the scripted server and the real `openai`
 * client, or fed chunk objects directly. Test-only (not built into dist).
 */
import OpenAI from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { StepDecoder, type DecodedStep, type DecoderOutput } from '../model/step-decoder';
import { ScriptedOpenAiServer, type ScriptedResponse } from './scripted-openai-server';

export type Delta = Record<string, unknown>;
const created = 1764615600;
/** vLLM's `ChatCompletionStreamResponse`: `logprobs` and `finish_reason` always present. */
export const vllm = (delta: Delta, finish: string | null = null) => ({
  id: 'chatcmpl-9f2c',
  object: 'chat.completion.chunk',
  created,
  model: 'Qwen/Qwen3-8B',
  choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
});
export const vllmUsage = (prompt: number, completion: number) => ({
  id: 'chatcmpl-9f2c',
  object: 'chat.completion.chunk',
  created,
  model: 'Qwen/Qwen3-8B',
  choices: [],
  usage: { prompt_tokens: prompt, total_tokens: prompt + completion, completion_tokens: completion },
});
/** llama-server: `choices` first, a `system_fingerprint` build tag, `content: null` in the role chunk. */
export const llama = (delta: Delta, finish: string | null = null) => ({
  choices: [{ finish_reason: finish, index: 0, delta }],
  created,
  id: 'chatcmpl-X6urH4f6JOot',
  model: 'gpt-oss-20b',
  system_fingerprint: 'b6097-9515c613',
  object: 'chat.completion.chunk',
});
export const llamaUsage = (prompt: number, completion: number) => ({
  ...llama({}),
  choices: [],
  usage: { completion_tokens: completion, prompt_tokens: prompt, total_tokens: prompt + completion },
  timings: { prompt_n: prompt, prompt_ms: 203.4, predicted_n: completion, predicted_ms: 933.6 },
});
/** Ollama's OpenAI layer: `fp_ollama`, `finish_reason` null until its own empty-delta chunk. */
export const ollama = (delta: Delta, finish: string | null = null) => ({
  id: 'chatcmpl-123',
  object: 'chat.completion.chunk',
  created,
  model: 'qwen3:8b',
  system_fingerprint: 'fp_ollama',
  choices: [{ index: 0, delta, finish_reason: finish }],
});
export const contentChunks = (make: (d: Delta) => object, ...pieces: string[]) =>
  pieces.map((content) => make({ content }));

export interface Decoded {
  pushes: DecoderOutput[][];
  out: DecoderOutput[];
  step: DecodedStep;
  /** The text the operator sees after applying every output in order. */
  seen: string;
}

/** Streams `chunks` over HTTP as the server would and decodes what the real client yields. */
export async function replay(
  server: ScriptedOpenAiServer,
  client: OpenAI,
  chunks: object[],
): Promise<Decoded> {
  // A responder, not the queue: a request that fails leaves nothing behind for the next test.
  const response: ScriptedResponse = {
    kind: 'stream',
    chunks: chunks.map((c) => ({ raw: JSON.stringify(c) })),
  };
  server.responder = () => response;
  const stream = await client.chat.completions.create({
    model: 'm',
    messages: [{ role: 'user', content: 'q' }],
    stream: true,
  });
  const decoder = new StepDecoder();
  const pushes: DecoderOutput[][] = [];
  for await (const chunk of stream) pushes.push(decoder.push(chunk));
  return finish(decoder, pushes);
}

/**
 * For a spec file: a scripted server and an `openai` client on it, started before its tests and
 * closed after them; the function returned replays chunks through both (`replay`).
 */
export function replayThroughServer(): (chunks: object[]) => Promise<Decoded> {
  let server: ScriptedOpenAiServer | undefined;
  let client: OpenAI | undefined;
  beforeAll(async () => {
    server = await ScriptedOpenAiServer.start();
    client = new OpenAI({ baseURL: server.baseUrl, apiKey: 'k', maxRetries: 0 });
  });
  afterAll(() => server?.close());
  return (chunks) => {
    if (!server || !client) throw new Error('replayThroughServer: replay inside tests, after beforeAll');
    return replay(server, client, chunks);
  };
}

/** Decodes chunk objects directly (for tests that try hundreds of splits); ids are `id0`, `id1`, … */
export function feed(chunks: unknown[]): Decoded {
  let n = 0;
  const decoder = new StepDecoder(() => `id${n++}`);
  return finish(
    decoder,
    chunks.map((c) => decoder.push(c as ChatCompletionChunk)),
  );
}

export function finish(decoder: StepDecoder, pushes: DecoderOutput[][]): Decoded {
  const { out, step } = decoder.end();
  let seen = '';
  for (const o of [...pushes.flat(), ...out])
    seen = o.kind === 'text' ? seen + o.text : seen.slice(0, o.length);
  return { pushes, out, step, seen };
}

export const shownAfter = (d: Decoded, i: number) => d.pushes.slice(0, i + 1).flat();
export const resets = (d: Decoded) => [...d.pushes.flat(), ...d.out].filter((o) => o.kind === 'reset');
