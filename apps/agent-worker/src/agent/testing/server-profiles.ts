import type { ScriptChunk, ScriptedResponse } from './scripted-openai-server';
import type { ServerProfileName } from './server-profile-http';

export type { ServerProfileName, RequestChecks } from './server-profile-http';
export { contextError, profileError, roughPromptTokens } from './server-profile-http';

/** What a model decides in one step, independent of how a server puts it on the wire. */
export interface ModelIntent {
  reasoning?: string;
  text?: string;
  toolCalls?: { id?: string; name: string; arguments: Record<string, unknown> }[];
  /** 'stop' | 'tool_calls' | 'length'; null = the connection closes after the chunks without finish reason and without [DONE]. Default: the server's natural one. */
  finish?: 'stop' | 'tool_calls' | 'length' | null;
  usage?: { promptTokens: number; completionTokens: number };
}

/**
 * How a model or server set-up departs from the clean protocol.
 * `toolCallsAsText`: no tool parser ran, so the calls arrive as content in the model's own syntax
 * (finish `stop`). `thinkInContent`: no reasoning parser ran, so the reasoning arrives as content
 * inside `<think>…</think>` (`tags`) or after a prompt that already opened the tag (`closing-only`).
 * `parallelIndexZero`: every parallel call has `index` 0 (distinct ids). `noIndex`: tool-call
 * deltas carry no `index`. `argumentsAsObject`: `function.arguments` is a JSON object, not a string.
 */
export interface ServerQuirks {
  toolCallsAsText?: 'hermes' | 'bare-json' | 'fenced-json' | 'qwen3-coder' | 'mistral';
  thinkInContent?: 'tags' | 'closing-only';
  parallelIndexZero?: boolean;
  noIndex?: boolean;
  argumentsAsObject?: boolean;
}

/** A tool call as the model would write it in text when no parser extracts it. */
export function toolCallText(
  style: NonNullable<ServerQuirks['toolCallsAsText']>,
  calls: NonNullable<ModelIntent['toolCalls']>,
): string {
  const json = (c: { name: string; arguments: Record<string, unknown> }) =>
    JSON.stringify({ name: c.name, arguments: c.arguments });
  switch (style) {
    case 'hermes': // vllm/entrypoints/openai/tool_parsers/hermes_tool_parser.py
      return calls.map((c) => `<tool_call>\n${json(c)}\n</tool_call>`).join('\n');
    case 'bare-json':
      return calls.map(json).join('\n');
    case 'fenced-json':
      return calls
        .map((c) => '```json\n' + JSON.stringify({ name: c.name, arguments: c.arguments }, null, 2) + '\n```')
        .join('\n');
    case 'qwen3-coder': // vllm/entrypoints/openai/tool_parsers/qwen3coder_tool_parser.py
      return calls
        .map((c) => {
          const params = Object.entries(c.arguments).map(
            ([k, v]) => `<parameter=${k}>\n${typeof v === 'string' ? v : JSON.stringify(v)}\n</parameter>`,
          );
          return `<tool_call>\n<function=${c.name}>\n${params.join('\n')}\n</function>\n</tool_call>`;
        })
        .join('\n');
    case 'mistral': // vllm/entrypoints/openai/tool_parsers/mistral_tool_parser.py (pre-v11 tokenizer format)
      return `[TOOL_CALLS]${JSON.stringify(calls.map((c) => ({ name: c.name, arguments: c.arguments })))}`;
  }
}

let encoded = 0;

/** Deterministic id material, so a replay is the same on every run. */
function idSource(seed: string) {
  let x = [...seed].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7) || 1;
  const next = () => (x = (x * 1103515245 + 12345) >>> 0);
  return (n: number, alphabet: string) =>
    Array.from({ length: n }, () => alphabet[next() % alphabet.length]).join('');
}
const ALNUM = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const HEX = '0123456789abcdef';

/** Splits `s` into pieces of `size` characters (at least one piece). */
function pieces(s: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out.length ? out : [''];
}

interface Wire {
  id: string;
  created: number;
  /** Fields every chunk carries besides id/object/created/model/choices. */
  extra: Record<string, unknown>;
  /** The field reasoning deltas use; undefined = the server does not stream reasoning. */
  reasoningField?: 'reasoning' | 'reasoning_content';
  /** The first chunk's delta (role, and the server's empty content). */
  roleDelta: Record<string, unknown>;
  toolId: (i: number) => string;
  /** Ollama sends each call whole in one chunk; the others send the name first, then argument fragments. */
  wholeToolCalls: boolean;
  /** Whether the first argument fragment travels with the name (OpenAI, llama.cpp) or after it (vLLM). */
  argsWithName: boolean;
  /** Where usage goes: on the finish chunk, or in a last chunk with `choices: []`. */
  usageOn: 'finish' | 'own-chunk';
  /** Extra delta fields DeepSeek / LiteLLM fill with null. */
  nullFields: Record<string, unknown>;
}

function wire(profile: ServerProfileName, seed: string): Wire {
  const r = idSource(`${profile}:${seed}`);
  const created = 1767225600;
  const uuid = () => `${r(8, HEX)}-${r(4, HEX)}-4${r(3, HEX)}-a${r(3, HEX)}-${r(12, HEX)}`;
  switch (profile) {
    case 'ollama': // middleware/openai.go ChatWriter + openai/openai.go toChunk/FinishChunk; ids from server/routes.go toolCallId
      return {
        id: `chatcmpl-${r(3, '0123456789').replace(/^0+(?=.)/, '')}`,
        created,
        extra: { system_fingerprint: 'fp_ollama' },
        reasoningField: 'reasoning',
        roleDelta: { role: 'assistant', content: '' },
        toolId: () => `call_${r(8, 'abcdefghijklmnopqrstuvwxyz0123456789')}`,
        wholeToolCalls: true,
        argsWithName: true,
        usageOn: 'own-chunk',
        nullFields: {},
      };
    case 'vllm': // vllm/entrypoints/openai/serving_chat.py chat_completion_stream_generator; hermes_tool_parser.py
      return {
        id: `chatcmpl-${r(32, HEX)}`,
        created,
        extra: {},
        reasoningField: 'reasoning_content',
        roleDelta: { role: 'assistant', content: '' },
        toolId: () => `chatcmpl-tool-${r(32, HEX)}`,
        wholeToolCalls: false,
        argsWithName: false,
        usageOn: 'own-chunk',
        nullFields: {},
      };
    case 'llamacpp': // tools/server/server.cpp to_json_oaicompat_chat_stream; common/chat.cpp diffs; utils.hpp gen_tool_call_id
      return {
        id: `chatcmpl-${r(32, ALNUM)}`,
        created,
        extra: { system_fingerprint: 'b6000-0000000' },
        reasoningField: 'reasoning_content',
        roleDelta: { role: 'assistant', content: null },
        toolId: () => r(32, ALNUM),
        wholeToolCalls: false,
        argsWithName: true,
        usageOn: 'finish',
        nullFields: {},
      };
    case 'lmstudio':
      return {
        id: `chatcmpl-${r(20, 'abcdefghijklmnopqrstuvwxyz0123456789')}`,
        created,
        extra: { system_fingerprint: 'lmstudio' },
        reasoningField: 'reasoning_content',
        roleDelta: { role: 'assistant' },
        toolId: () => r(9, '0123456789').replace(/^0/, '1'),
        wholeToolCalls: false,
        argsWithName: true,
        usageOn: 'finish',
        nullFields: {},
      };
    case 'litellm': // litellm/litellm_core_utils/streaming_handler.py: explicit nulls in every delta
      return {
        id: `chatcmpl-${uuid()}`,
        created,
        extra: { system_fingerprint: null },
        reasoningField: 'reasoning_content',
        roleDelta: { role: 'assistant', content: '' },
        toolId: () => `call_${r(24, ALNUM)}`,
        wholeToolCalls: false,
        argsWithName: true,
        usageOn: 'own-chunk',
        nullFields: { function_call: null, tool_calls: null, audio: null },
      };
    case 'deepseek': // api-docs.deepseek.com/guides/thinking_mode: reasoning_content deltas, usage on the last chunk
      return {
        id: uuid(),
        created,
        extra: { system_fingerprint: 'fp_ffc7281d48_prod0820_fp8_kvcache' },
        reasoningField: 'reasoning_content',
        roleDelta: { role: 'assistant', content: '' },
        toolId: (i) => `call_${String(i).padStart(2, '0')}_${r(24, ALNUM)}`,
        wholeToolCalls: false,
        argsWithName: true,
        usageOn: 'finish',
        nullFields: {},
      };
    case 'openai':
      return {
        id: `chatcmpl-${r(29, ALNUM)}`,
        created,
        extra: { service_tier: 'default', system_fingerprint: 'fp_2f406b9113' },
        roleDelta: { role: 'assistant', content: '', refusal: null },
        toolId: () => `call_${r(24, ALNUM)}`,
        wholeToolCalls: false,
        argsWithName: true,
        usageOn: 'own-chunk',
        nullFields: {},
      };
  }
}

/**
 * The chunks `profile` streams for `intent`, each a whole chunk object in that server's envelope:
 * its id formats, the role-first chunk, the reasoning field (Ollama `reasoning`; vLLM, llama.cpp,
 * LM Studio, LiteLLM and DeepSeek `reasoning_content`; OpenAI streams none), how tool calls are
 * fragmented (Ollama: each call whole in one chunk; vLLM: the name, then the argument fragments;
 * the others: the name with the first fragment), the finish chunk, and where usage goes (a last
 * `choices: []` chunk for OpenAI, Ollama, vLLM and LiteLLM, which the scripted server sends only
 * when the request asks for `stream_options.include_usage`, as they do; on the finish chunk for llama.cpp, LM Studio and
 * DeepSeek). `quirks` reproduce a model or set-up whose output the server does not parse.
 * `finish: null` streams no finish chunk and ends without `[DONE]`. The scripted server fills in
 * each chunk's `model` from the request.
 */
export function encodeIntent(
  profile: ServerProfileName,
  intent: ModelIntent,
  quirks: ServerQuirks = {},
): ScriptedResponse {
  encoded += 1; // the same intent encoded twice still gets new ids, as from a real server
  const w = wire(profile, `${encoded}:${JSON.stringify(intent)}`);
  const chunk = (
    delta: Record<string, unknown>,
    finish: string | null = null,
    more: Record<string, unknown> = {},
  ): ScriptChunk => ({
    json: {
      id: w.id,
      object: 'chat.completion.chunk',
      created: w.created,
      ...w.extra,
      choices: [{ index: 0, delta: { ...w.nullFields, ...delta }, logprobs: null, finish_reason: finish }],
      ...(intent.usage && profile === 'openai' ? { usage: null } : {}),
      ...more,
    },
  });
  const chunks: ScriptChunk[] = [];
  const textCalls = quirks.toolCallsAsText && intent.toolCalls?.length ? intent.toolCalls : undefined;
  const wireCalls = textCalls ? [] : (intent.toolCalls ?? []);

  // Content, reasoning inline when no reasoning parser ran, tool calls inline when no tool parser ran.
  let content = intent.text ?? '';
  let reasoning = intent.reasoning;
  if (reasoning && quirks.thinkInContent) {
    content = `${quirks.thinkInContent === 'tags' ? '<think>\n' : ''}${reasoning}\n</think>\n\n${content}`;
    reasoning = undefined;
  }
  if (textCalls)
    content = `${content}${content ? '\n\n' : ''}${toolCallText(quirks.toolCallsAsText!, textCalls)}`;

  let first = true;
  const open = (delta: Record<string, unknown>) => {
    const d = first ? { ...w.roleDelta, ...delta } : delta;
    first = false;
    return d;
  };
  if (reasoning && w.reasoningField) {
    const extraNull =
      profile === 'deepseek' ? { content: null } : profile === 'ollama' ? { content: '' } : {};
    for (const p of pieces(reasoning, 6)) chunks.push(chunk(open({ ...extraNull, [w.reasoningField]: p })));
  }
  if (content) {
    const extraNull =
      profile === 'deepseek' && w.reasoningField && intent.reasoning ? { reasoning_content: null } : {};
    for (const p of pieces(content, 5)) chunks.push(chunk(open({ content: p, ...extraNull })));
  }
  wireCalls.forEach((call, i) => {
    const index = quirks.parallelIndexZero ? 0 : i;
    const idx = quirks.noIndex ? {} : { index };
    const id = call.id ?? w.toolId(i);
    const args = JSON.stringify(call.arguments);
    const fn = (f: Record<string, unknown>) => ({ tool_calls: [{ ...idx, ...f }] });
    if (quirks.argumentsAsObject || w.wholeToolCalls) {
      const value = quirks.argumentsAsObject ? call.arguments : args;
      const base = profile === 'ollama' ? { content: '' } : {};
      chunks.push(
        chunk(
          open({ ...base, ...fn({ id, type: 'function', function: { name: call.name, arguments: value } }) }),
        ),
      );
      return;
    }
    const frags = pieces(args, 7);
    if (w.argsWithName) {
      chunks.push(
        chunk(open(fn({ id, type: 'function', function: { name: call.name, arguments: frags[0] } }))),
      );
      for (const f of frags.slice(1)) chunks.push(chunk(fn({ function: { arguments: f } })));
    } else {
      chunks.push(chunk(open(fn({ id, type: 'function', function: { name: call.name } }))));
      for (const f of frags) chunks.push(chunk(fn({ function: { arguments: f } })));
    }
  });
  if (first) chunks.push(chunk(open({})));

  if (intent.finish === null) return { kind: 'stream', chunks, cut: true };
  const finish = intent.finish ?? (wireCalls.length ? 'tool_calls' : 'stop');
  const usage = intent.usage && {
    prompt_tokens: intent.usage.promptTokens,
    completion_tokens: intent.usage.completionTokens,
    total_tokens: intent.usage.promptTokens + intent.usage.completionTokens,
  };
  const finishDelta = profile === 'vllm' ? { content: '' } : {};
  if (usage && w.usageOn === 'finish') {
    const timings =
      profile === 'llamacpp'
        ? { timings: { prompt_n: usage.prompt_tokens, predicted_n: usage.completion_tokens } }
        : {};
    chunks.push(chunk(finishDelta, finish, { usage, ...timings }));
  } else {
    chunks.push(chunk(finishDelta, finish));
    if (usage)
      chunks.push({
        json: {
          id: w.id,
          object: 'chat.completion.chunk',
          created: w.created,
          ...w.extra,
          choices: [],
          usage,
        },
        ifIncludeUsage: true,
      });
  }
  return { kind: 'stream', chunks };
}

/**
 * How `profile` reports a failure after the stream has started (the response is already 200),
 * followed by `[DONE]` or not as that server does (`cut`): vLLM and the OpenAI-shaped servers send
 * `data: {"error":{...}}`, which the `openai` SDK raises; llama.cpp writes an `error: {...}` line
 * that SSE clients ignore, then closes the stream.
 */
export function streamError(
  profile: ServerProfileName,
  message: string,
): { chunks: ScriptChunk[]; cut: boolean } {
  switch (profile) {
    case 'vllm': // vllm/entrypoints/openai/serving_engine.py create_streaming_error_response
      return {
        chunks: [
          {
            raw: JSON.stringify({
              error: { object: 'error', message, type: 'InternalServerError', param: null, code: 500 },
            }),
          },
        ],
        cut: false,
      };
    case 'llamacpp': // tools/server/server.cpp: server_sent_event(sink, "error", …), then sink.done()
      return {
        chunks: [{ sse: `error: ${JSON.stringify({ code: 500, message, type: 'server_error' })}` }],
        cut: true,
      };
    default:
      return {
        chunks: [
          { raw: JSON.stringify({ error: { message, type: 'server_error', param: null, code: null } }) },
        ],
        cut: false,
      };
  }
}
