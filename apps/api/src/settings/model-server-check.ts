import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import { TOOL_DEFINITIONS, type SettingsTestResult } from '@corpus-chat/contracts';
import {
  connectionErrorCode,
  connectionFailure,
  discoverContextLength,
  effectiveContextBudget,
  fetchWithoutRedirects,
  httpFailure,
} from '@corpus-chat/server-core';

/** What to test: an OpenAI-compatible server and a model on it. */
export interface ModelServerTarget {
  baseUrl: string;
  model: string;
  apiKey: string | null;
}

export interface ModelServerCheckOptions {
  /** Milliseconds for `GET /models` (default 15 s). */
  listTimeoutMs?: number;
  /** Milliseconds for each one-token completion; a local model may need to load first (default 120 s). */
  completionTimeoutMs?: number;
  /** Milliseconds for each context-length probe (default 5 s). */
  contextTimeoutMs?: number;
  /** The agent's own budget, `AGENT_CONTEXT_TOKENS` (default 6,000, the agent-worker's default). */
  agentContextTokens?: number;
}

/**
 * Why a request failed, in our words: the status with a fixed phrase (never the server's body), or
 * what stopped the connection.
 */
export function serverMessage(e: unknown, baseUrl?: string): string {
  if (e instanceof APIConnectionTimeoutError)
    return `no answer${baseUrl ? ` from ${baseUrl}` : ''} in time (timed out)`;
  if (e instanceof APIConnectionError) return connectionFailure(e, baseUrl);
  if (e instanceof APIError) return httpFailure(e.status);
  return 'the request failed';
}

/** What to change on the server when it refuses the agent's tools, from its own error message. */
function toolsHint(message: string, model: string): string {
  // Ollama: `<model> does not support tools` (server/images.go, errCapabilities).
  if (/does not support tools/i.test(message)) {
    return `Ollama cannot give '${model}' tools: pick a model whose page on ollama.com lists "tools" (e.g. qwen3, llama3.1).`;
  }
  // llama.cpp without --jinja: `tools param requires --jinja flag` (tools/server, oaicompat_chat_params_parse).
  if (/--jinja/.test(message)) {
    return "Start llama.cpp's server with --jinja, with a model whose chat template handles tools (or --chat-template-file).";
  }
  // vLLM: `"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set`.
  if (/enable-auto-tool-choice|tool-call-parser/.test(message)) {
    return "Start vLLM with --enable-auto-tool-choice and the model's --tool-call-parser (e.g. hermes for Qwen).";
  }
  return 'The agent answers by calling tools: use a model and server that accept OpenAI `tools`.';
}

const fmt = (n: number) => n.toLocaleString('en-US');

/**
 * Checks an OpenAI-compatible server as the agent uses it: `models` (lists the model),
 * `completion`, `tools` (with `TOOL_DEFINITIONS`) and `context` (informational). Failures carry the
 * server's message and, for `tools`, the flag needed. A timed-out model list stops the rest. Never throws.
 */
export async function checkModelServer(
  target: ModelServerTarget,
  options: ModelServerCheckOptions = {},
): Promise<SettingsTestResult> {
  const client = new OpenAI({
    baseURL: target.baseUrl,
    apiKey: target.apiKey || 'not-needed',
    maxRetries: 0,
    fetch: fetchWithoutRedirects(),
  });
  const checks: SettingsTestResult['checks'] = [];
  const agentTokens = options.agentContextTokens ?? 6000;
  const listTimeoutMs = options.listTimeoutMs ?? 15_000;
  const completionTimeoutMs = options.completionTimeoutMs ?? 120_000;
  const listStarted = Date.now();
  try {
    const ids: string[] = [];
    for await (const m of client.models.list({ timeout: listTimeoutMs })) {
      ids.push(m.id);
      if (ids.length >= 500) break;
    }
    const listed = ids.includes(target.model);
    checks.push({
      name: 'models',
      ok: listed,
      detail: listed
        ? `The server lists ${ids.length} model(s), including '${target.model}'.`
        : `The server lists ${ids.length} model(s), but not '${target.model}'${ids.length ? ` (available: ${ids.slice(0, 10).join(', ')}${ids.length > 10 ? ', …' : ''})` : ''}: a turn with it would fail. Use a listed name, or pull or load the model first.`,
    });
  } catch (e) {
    checks.push({
      name: 'models',
      ok: false,
      detail: `Listing the models failed: ${serverMessage(e, target.baseUrl)}`,
    });
    // A server that accepted the connection but did not answer in time would hold the completion's
    // longer timeout too. Some runtimes report the SDK's timeout as a connection error, hence the clock.
    const code = connectionErrorCode(e);
    const answered = code !== undefined && !/TIMEDOUT|TIMEOUT/.test(code);
    if (e instanceof APIConnectionTimeoutError || (!answered && Date.now() - listStarted >= listTimeoutMs)) {
      const why = `Not tried: ${target.baseUrl} did not answer the model list in time, so`;
      checks.push(
        { name: 'completion', ok: false, detail: `${why} a completion would not be answered either.` },
        { name: 'tools', ok: false, detail: `${why} a request with tools would not be answered either.` },
        {
          name: 'context',
          ok: true,
          detail: `Context length unknown (not asked: the server did not answer in time): the budget is AGENT_CONTEXT_TOKENS, ${fmt(agentTokens)} tokens.`,
        },
      );
      return { ok: false, checks, contextBudgetTokens: agentTokens };
    }
  }

  let completed = false;
  try {
    const r = await client.chat.completions.create(
      {
        model: target.model,
        messages: [{ role: 'user', content: 'Reply with the single word OK.' }],
        max_tokens: 1,
        stream: false,
      },
      { timeout: completionTimeoutMs },
    );
    completed = true;
    // Never the reply itself: the settings page is no channel for what a model server says.
    checks.push({
      name: 'completion',
      ok: true,
      detail: `The model '${target.model}' answered${r.choices?.[0]?.message?.content ? '' : ' (an empty reply)'}.`,
    });
  } catch (e) {
    checks.push({
      name: 'completion',
      ok: false,
      detail: `A one-token completion with '${target.model}' failed: ${serverMessage(e, target.baseUrl)}`,
    });
  }

  if (!completed) {
    checks.push({
      name: 'tools',
      ok: false,
      detail: 'Not tried: the plain completion failed, so a request with tools would fail too.',
    });
  } else {
    try {
      const r = await client.chat.completions.create(
        {
          model: target.model,
          messages: [
            {
              role: 'user',
              content: 'How many reports and findings are in the corpus? Use the get_corpus_overview tool.',
            },
          ],
          tools: TOOL_DEFINITIONS.map((t) => ({
            type: 'function' as const,
            function: { name: t.name, description: t.description, parameters: t.parameters },
          })),
          tool_choice: 'auto',
          max_tokens: TOOL_CHECK_MAX_TOKENS,
          stream: false,
        },
        { timeout: completionTimeoutMs },
      );
      checks.push({ name: 'tools', ...toolCallVerdict(r.choices?.[0]?.message, target.model) });
    } catch (e) {
      // The hint is chosen by the server's words, which are not shown themselves.
      const hint = toolsHint(e instanceof APIError ? e.message : '', target.model);
      checks.push({
        name: 'tools',
        ok: false,
        detail: `A request with the agent's tools was refused: ${serverMessage(e, target.baseUrl)}. ${hint}`,
      });
    }
  }

  // After the completion: Ollama then has the model loaded and reports the context it really uses.
  const info = await discoverContextLength(target.baseUrl, target.model, target.apiKey, {
    timeoutMs: options.contextTimeoutMs,
  });
  const budget = effectiveContextBudget(info.contextTokens, agentTokens);
  let detail: string;
  if (info.contextTokens === undefined) {
    detail = `Context length unknown: the budget is AGENT_CONTEXT_TOKENS, ${fmt(agentTokens)} tokens. ${info.detail}`;
  } else {
    detail = `${info.detail} Effective budget: ${fmt(budget)} tokens, 80 % of that window (the answer needs room too) or AGENT_CONTEXT_TOKENS, whichever is smaller (${fmt(agentTokens)}).`;
    if (info.contextTokens < agentTokens)
      detail +=
        " Turns get less than AGENT_CONTEXT_TOKENS: raise the server's context (docs/models.md, Context length) for longer histories and results.";
  }
  checks.push({ name: 'context', ok: true, detail });
  return {
    ok: checks.every((c) => c.ok),
    checks,
    contextTokens: info.contextTokens,
    contextBudgetTokens: budget,
    ...(info.parallelSlots ? { parallelSlots: info.parallelSlots } : {}),
  };
}

/** Tokens the tool check lets the model write: room for a call, or for reasoning before it. */
const TOOL_CHECK_MAX_TOKENS = 512;

/** Tool-call syntax a server's parser left in the content (Hermes, Qwen3-Coder, Mistral, a JSON call). */
const TEXT_CALL = /<tool_call>|<function=|\[TOOL_CALLS\]|"name"\s*:\s*"get_corpus_overview"/;

/**
 * Whether the model called a tool: structured passes, a call written as text passes with advice,
 * no call fails.
 */
export function toolCallVerdict(
  message:
    | {
        content?: string | null;
        tool_calls?: ({ function?: { name?: string } } | { custom?: unknown })[] | null;
      }
    | undefined,
  model: string,
): { ok: boolean; detail: string } {
  const name = message?.tool_calls
    ?.map((c) => ('function' in c ? c.function?.name : undefined))
    .find(Boolean);
  if (name)
    return { ok: true, detail: `Asked a question that needs a tool, the model '${model}' called ${name}.` };
  const text = message?.content ?? '';
  if (TEXT_CALL.test(text)) {
    return {
      ok: true,
      detail: `The model '${model}' wrote its tool call as text instead of a structured call: the worker recovers it, but the server should parse it (vLLM: --enable-auto-tool-choice --tool-call-parser for the model family; llama.cpp: --jinja).`,
    };
  }
  return {
    ok: false,
    detail: `Asked a question that needs a tool, the model '${model}' answered without calling one: its answers would not come from the corpus. Choose a model with tool calling (e.g. qwen3 or qwen2.5-instruct), or check the server's tool-call settings.`,
  };
}
