/** Which server's own API told the context length. */
export type ModelContextSource = 'ollama' | 'vllm' | 'llamacpp' | 'lmstudio';

/** What `discoverContextLength` found: `contextTokens` is undefined when no probe answered. */
export interface ModelContextInfo {
  /** Tokens of context the server gives `model` (prompt and answer together). */
  contextTokens?: number;
  source?: ModelContextSource;
  /**
   * True when `contextTokens` is the server's default rather than what the model runs with (an
   * Ollama model not loaded yet): ask again once the model is loaded.
   */
  provisional?: boolean;
  /**
   * Requests the server runs at once, when it tells them: llama.cpp's `total_slots` (`--parallel`).
   * vLLM tells its `max_num_seqs` only on the dev-mode `/server_info`; Ollama and LM Studio not at all.
   */
  parallelSlots?: number;
  /** One sentence for an operator: the number and where it came from, or why it is unknown. */
  detail: string;
}

export interface DiscoverContextOptions {
  /** Milliseconds each probe may take, body included (default 5 s). */
  timeoutMs?: number;
  /** Replaces the global `fetch` (tests). */
  fetch?: typeof fetch;
}

/** Ollama's context when neither the model nor `OLLAMA_CONTEXT_LENGTH` sets one (GPUs under 24 GiB). */
export const OLLAMA_DEFAULT_CONTEXT_TOKENS = 4096;

/**
 * Share of the server's context window a turn's prompt may fill: the worker counts with its own
 * tokenizer, not the model's, and the answer needs room in the same window.
 */
export const SERVER_CONTEXT_SHARE = 0.8;

/** A turn's prompt budget: `SERVER_CONTEXT_SHARE` of the context, capped by `AGENT_CONTEXT_TOKENS`. */
export function effectiveContextBudget(
  serverContextTokens: number | null | undefined,
  agentContextTokens: number,
): number {
  return serverContextTokens && serverContextTokens > 0
    ? Math.min(Math.floor(serverContextTokens * SERVER_CONTEXT_SHARE), agentContextTokens)
    : agentContextTokens;
}

/** `baseUrl` without trailing slashes and without a final `/v1`: where the servers' native APIs live. */
export function serverRoot(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
}

type ProbeAnswer = { ok: true; body: unknown } | { ok: false; why: string };
type Found = { tokens: number; detail: string; provisional?: boolean; parallelSlots?: number };
/** What one probe found, or why it found nothing. */
type ProbeResult = Found | string;

const positiveInt = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined;
const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const fmt = (n: number) => n.toLocaleString('en-US');

/**
 * Asks the server for `model`'s context size through vLLM's, Ollama's, llama.cpp's and LM
 * Studio's APIs at once, first answer in that order wins. The key goes only to `baseUrl`
 * (redirects refused). Never throws; unknown leaves `contextTokens` undefined with a detail.
 */
export async function discoverContextLength(
  baseUrl: string,
  model: string,
  apiKey: string | null,
  opts: DiscoverContextOptions = {},
): Promise<ModelContextInfo> {
  const doFetch = opts.fetch ?? fetch;
  const timeoutMs = opts.timeoutMs ?? 5000;
  const base = baseUrl.replace(/\/+$/, '');
  const root = serverRoot(baseUrl);

  const call = async (
    url: string,
    init: { method?: 'GET' | 'POST'; body?: unknown } = {},
  ): Promise<ProbeAnswer> => {
    try {
      const headers: Record<string, string> = { accept: 'application/json' };
      if (apiKey) headers['authorization'] = `Bearer ${apiKey}`;
      if (init.body !== undefined) headers['content-type'] = 'application/json';
      const res = await doFetch(url, {
        method: init.method ?? 'GET',
        headers,
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
        redirect: 'error',
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (!res.ok) {
        await res.body?.cancel().catch(() => undefined);
        return { ok: false, why: `HTTP ${res.status}` };
      }
      return { ok: true, body: await res.json() };
    } catch (e) {
      const err = e as Error;
      if (err?.name === 'TimeoutError' || err?.name === 'AbortError')
        return { ok: false, why: 'no answer in time' };
      if (err instanceof SyntaxError) return { ok: false, why: 'not JSON' };
      return { ok: false, why: 'no connection' };
    }
  };

  // vLLM: each card of GET /v1/models carries `max_model_len`
  // (vllm/entrypoints/openai/protocol.py, ModelCard).
  const vllm = async (): Promise<ProbeResult> => {
    const a = await call(`${base}/models`);
    if (!a.ok) return a.why;
    const data = isRecord(a.body) && Array.isArray(a.body['data']) ? (a.body['data'] as unknown[]) : [];
    const card = data.find((m) => isRecord(m) && m['id'] === model);
    const tokens = isRecord(card) ? positiveInt(card['max_model_len']) : undefined;
    if (!tokens) return 'no max_model_len';
    return {
      tokens,
      detail:
        `vLLM serves '${model}' with a context of ${fmt(tokens)} tokens ` +
        '(max_model_len, set by --max-model-len).',
    };
  };

  // Ollama: POST /api/show gives `parameters` (text lines "num_ctx   8192") and `model_info`
  // ("<arch>.context_length", the trained maximum) (ollama server/routes.go GetModelInfo); GET /api/ps
  // gives a loaded model's actual `context_length` (api/types.go ProcessModelResponse).
  const ollama = async (): Promise<ProbeResult> => {
    const shown = await call(`${root}/api/show`, { method: 'POST', body: { model } });
    if (!shown.ok || !isRecord(shown.body) || !('model_info' in shown.body || 'parameters' in shown.body)) {
      return shown.ok ? 'not an Ollama answer' : shown.why;
    }
    const info = isRecord(shown.body['model_info']) ? shown.body['model_info'] : {};
    const arch = typeof info['general.architecture'] === 'string' ? info['general.architecture'] : undefined;
    const trainedKey =
      arch && `${arch}.context_length` in info
        ? `${arch}.context_length`
        : Object.keys(info).find((k) => k.endsWith('.context_length'));
    const trained = trainedKey ? positiveInt(info[trainedKey]) : undefined;
    const params = typeof shown.body['parameters'] === 'string' ? shown.body['parameters'] : '';
    const numCtxMatch = /^num_ctx\s+(\d+)\s*$/m.exec(params);
    const numCtx = numCtxMatch ? positiveInt(Number(numCtxMatch[1])) : undefined;

    const ps = await call(`${root}/api/ps`);
    const running =
      ps.ok && isRecord(ps.body) && Array.isArray(ps.body['models']) ? (ps.body['models'] as unknown[]) : [];
    const names = model.includes(':') ? [model] : [model, `${model}:latest`];
    const loaded = running.find(
      (m) => isRecord(m) && (names.includes(m['name'] as string) || names.includes(m['model'] as string)),
    );
    const loadedCtx = isRecord(loaded) ? positiveInt(loaded['context_length']) : undefined;
    if (loadedCtx)
      return {
        tokens: loadedCtx,
        detail:
          `Ollama runs '${model}' with a context of ${fmt(loadedCtx)} tokens ` +
          '(the loaded model, /api/ps).',
      };

    const cap = (n: number) => (trained ? Math.min(n, trained) : n);
    const trainedFor = trained ? `; trained for ${fmt(trained)}` : '';
    if (numCtx) {
      const tokens = cap(numCtx);
      return {
        tokens,
        detail:
          `Ollama gives '${model}' a context of ${fmt(tokens)} tokens ` +
          `(num_ctx ${fmt(numCtx)} in its parameters${trainedFor}).`,
      };
    }
    const tokens = cap(OLLAMA_DEFAULT_CONTEXT_TOKENS);
    return {
      tokens,
      provisional: true,
      detail:
        `Ollama gives '${model}' its default context of ${fmt(tokens)} tokens ` +
        `(no num_ctx in the model's parameters${trainedFor}). ` +
        'OLLAMA_CONTEXT_LENGTH or a GPU with 24 GiB or more raises the default; ' +
        'the loaded model shows the real figure.',
    };
  };

  // llama.cpp: GET /props gives the per-slot context as `default_generation_settings.n_ctx`
  // (tools/server/server.cpp, the props handler; older builds had a top-level `n_ctx`) and the
  // slots as `total_slots`.
  const llamacpp = async (): Promise<ProbeResult> => {
    const a = await call(`${root}/props`);
    if (!a.ok) return a.why;
    const body = isRecord(a.body) ? a.body : {};
    const settings = isRecord(body['default_generation_settings']) ? body['default_generation_settings'] : {};
    const tokens = positiveInt(settings['n_ctx']) ?? positiveInt(body['n_ctx']);
    if (!tokens) return 'no n_ctx';
    return {
      tokens,
      detail:
        `llama.cpp's server has a context of ${fmt(tokens)} tokens per slot ` +
        '(n_ctx, set by --ctx-size and divided by --parallel).',
      parallelSlots: positiveInt(body['total_slots']),
    };
  };

  // LM Studio: GET /api/v0/models lists `loaded_context_length` for a loaded model and
  // `max_context_length` for every model (lmstudio.ai/docs, REST API v0).
  const lmstudio = async (): Promise<ProbeResult> => {
    const a = await call(`${root}/api/v0/models`);
    if (!a.ok) return a.why;
    const data = isRecord(a.body) && Array.isArray(a.body['data']) ? (a.body['data'] as unknown[]) : [];
    const entry = data.find((m) => isRecord(m) && m['id'] === model);
    if (!isRecord(entry)) return `'${model}' not listed`;
    const loaded = positiveInt(entry['loaded_context_length']);
    const max = positiveInt(entry['max_context_length']);
    if (loaded)
      return {
        tokens: loaded,
        detail:
          `LM Studio has '${model}' loaded with a context of ${fmt(loaded)} tokens ` +
          '(loaded_context_length).',
      };
    if (max)
      return {
        tokens: max,
        detail:
          `LM Studio allows '${model}' up to ${fmt(max)} tokens of context ` +
          '(max_context_length; the context length chosen when loading may be lower).',
      };
    return 'no context length';
  };

  const probes: { source: ModelContextSource; label: string; run: () => Promise<ProbeResult> }[] = [
    { source: 'vllm', label: 'vLLM GET /models', run: vllm },
    { source: 'ollama', label: 'Ollama POST /api/show', run: ollama },
    { source: 'llamacpp', label: 'llama.cpp GET /props', run: llamacpp },
    { source: 'lmstudio', label: 'LM Studio GET /api/v0/models', run: lmstudio },
  ];
  const results = await Promise.all(probes.map((p) => p.run().catch((): ProbeResult => 'failed')));
  const hit = results.findIndex((r) => typeof r !== 'string');
  if (hit >= 0) {
    const found = results[hit] as Found;
    return {
      contextTokens: found.tokens,
      source: probes[hit]!.source,
      detail: found.detail,
      ...(found.provisional ? { provisional: true } : {}),
      ...(found.parallelSlots ? { parallelSlots: found.parallelSlots } : {}),
    };
  }
  const why = probes.map((p, i) => `${p.label}: ${results[i] as string}`).join('; ');
  return { detail: `None of the context probes answered (${why}).` };
}
