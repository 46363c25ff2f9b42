import type { ScriptedResponse } from './scripted-openai-server';

/** A scripted answer with an HTTP status and body. */
export type StatusResponse = Extract<ScriptedResponse, { kind: 'status' }>;

/** The OpenAI-compatible servers the scripted server can answer like. */
export type ServerProfileName =
  'openai' | 'ollama' | 'vllm' | 'llamacpp' | 'lmstudio' | 'litellm' | 'deepseek';

/**
 * Requests a profile refuses as the real server would, before any scripted response is used (a
 * refused request does not take one from the queue).
 */
export interface RequestChecks {
  /** Two `user` (or two plain `assistant`) messages in a row, or a first turn that is not `user`: the chat template raises. */
  strictAlternation?: boolean;
  /** DeepSeek thinking mode: an assistant message with `tool_calls` after the last user message must carry `reasoning_content`. */
  requireReasoningBack?: boolean;
  /** The model cannot call tools: any request with `tools` is refused. */
  rejectTools?: boolean;
  /** Context window in tokens: a request whose rough prompt size (`roughPromptTokens`) exceeds it is refused. */
  contextLength?: number;
  /** The first `times` requests (default 1) answer 429 with `Retry-After: retryAfterSeconds`. */
  rateLimit?: { times?: number; retryAfterSeconds: number };
}

/** What the side routes report: model ids, the context window the model runs with, and the one it was trained with. */
export interface ProfileInfo {
  models: string[];
  contextLength: number;
  trainedContextLength: number;
  /** llama.cpp `/props`: where `n_ctx` appears (versions differ). */
  propsLayout: 'nested' | 'top-level' | 'both';
  /** llama.cpp `/props` `total_slots` (`--parallel`). */
  parallelSlots?: number;
  /** Ollama: no `num_ctx` in the model's parameters and no model loaded (its default window applies). */
  defaultContext?: boolean;
}

/** Prompt size as a server would roughly count it: 4 characters per token over the messages and tools JSON. */
export function roughPromptTokens(body: { messages?: unknown; tools?: unknown } | undefined): number {
  return Math.ceil(
    (JSON.stringify(body?.messages ?? []).length + JSON.stringify(body?.tools ?? []).length) / 4,
  );
}

/** An error answer with `message` in the body shape `profile` uses for `status`. */
export function profileError(
  profile: ServerProfileName | undefined,
  status: number,
  message: string,
  extra: Record<string, unknown> = {},
): StatusResponse {
  switch (profile) {
    case 'vllm': // vllm/entrypoints/openai/serving_engine.py create_error_response (ErrorResponse before the `error` wrapper)
      return {
        kind: 'status',
        status,
        body: {
          object: 'error',
          message,
          type: status === 400 ? 'BadRequestError' : 'InternalServerError',
          param: null,
          code: status,
          ...extra,
        },
      };
    case 'llamacpp': // tools/server/utils.hpp format_error_response
      return {
        kind: 'status',
        status,
        body: {
          error: {
            code: status,
            message,
            type: status === 400 ? 'invalid_request_error' : 'server_error',
            ...extra,
          },
        },
      };
    case 'lmstudio': // LM Studio answers most refusals with a bare string
      return { kind: 'status', status, body: { error: message, ...extra } };
    case 'litellm': // litellm/proxy/proxy_server.py ProxyException: `code` is a string
      return {
        kind: 'status',
        status,
        body: { error: { message, type: null, param: null, code: String(status), ...extra } },
      };
    case 'ollama': // openai/openai.go NewError, through middleware/openai.go writeError
      return {
        kind: 'status',
        status,
        body: {
          error: {
            message,
            type: status === 400 ? 'invalid_request_error' : status === 404 ? 'not_found_error' : 'api_error',
            param: null,
            code: null,
            ...extra,
          },
        },
      };
    case 'deepseek':
      return {
        kind: 'status',
        status,
        body: {
          error: {
            message,
            type: 'invalid_request_error',
            param: null,
            code: 'invalid_request_error',
            ...extra,
          },
        },
      };
    default:
      return {
        kind: 'status',
        status,
        body: {
          error: {
            message,
            type: status === 400 ? 'invalid_request_error' : 'server_error',
            param: null,
            code: null,
            ...extra,
          },
        },
      };
  }
}

/** The error `profile` answers for a prompt of `prompt` tokens over a context of `n` tokens. */
export function contextError(
  profile: ServerProfileName | undefined,
  prompt: number,
  n: number,
): StatusResponse {
  switch (profile) {
    case 'vllm': // vllm/entrypoints/openai/serving_engine.py _validate_input
      return profileError(
        'vllm',
        400,
        `This model's maximum context length is ${n} tokens. However, you requested ${prompt} tokens (${prompt} in the messages, 0 in the completion). Please reduce the length of the messages or completion.`,
      );
    case 'llamacpp': // tools/server/server.cpp: ERROR_TYPE_EXCEED_CONTEXT_SIZE with n_prompt_tokens and n_ctx
      return {
        kind: 'status',
        status: 400,
        body: {
          error: {
            code: 400,
            message: `request (${prompt} tokens) exceeds the available context size (${n} tokens), try increasing it`,
            type: 'exceed_context_size_error',
            n_prompt_tokens: prompt,
            n_ctx: n,
          },
        },
      };
    case 'ollama': // server/routes.go chat truncation: "the input length exceeds the context length"
      return profileError('ollama', 400, 'the input length exceeds the context length');
    case 'lmstudio':
      return profileError(
        'lmstudio',
        400,
        `Trying to keep the first ${prompt} tokens when context the overflows. However, the model is loaded with context length of only ${n} tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input`,
      );
    case 'litellm': // litellm maps the upstream 400 to ContextWindowExceededError
      return profileError(
        'litellm',
        400,
        `litellm.ContextWindowExceededError: litellm.BadRequestError: ContextWindowExceededError: OpenAIException - This model's maximum context length is ${n} tokens. However, your messages resulted in ${prompt} tokens. Please reduce the length of the messages.`,
      );
    case 'deepseek':
      return profileError(
        'deepseek',
        400,
        `This model's maximum context length is ${n} tokens. However, you requested ${prompt} tokens (${prompt} in the messages, 0 in the completion). Please reduce the length of the messages or completion.`,
      );
    default:
      return {
        kind: 'status',
        status: 400,
        body: {
          error: {
            message: `This model's maximum context length is ${n} tokens. However, your messages resulted in ${prompt} tokens. Please reduce the length of the messages.`,
            type: 'invalid_request_error',
            param: 'messages',
            code: 'context_length_exceeded',
          },
        },
      };
  }
}

const ALTERNATE = 'Conversation roles must alternate user/assistant/user/assistant/...';

/** The refusal of a chat template that raises on roles out of order, as each server passes it on. */
function alternationError(profile: ServerProfileName | undefined): ScriptedResponse {
  // llama.cpp: the template's raise_exception is a std::runtime_error, which server.cpp ex_wrapper answers with 500
  if (profile === 'llamacpp') return profileError('llamacpp', 500, ALTERNATE);
  if (profile === 'lmstudio')
    return profileError(
      'lmstudio',
      400,
      `Error rendering prompt with jinja template: "${ALTERNATE}".\n\nThis is usually an issue with the model's prompt template.`,
    );
  return profileError(profile, 400, ALTERNATE);
}

/** The refusal of a model without tool support. */
function toolsError(profile: ServerProfileName | undefined, model: string): ScriptedResponse {
  switch (profile) {
    case 'ollama': {
      // server/images.go CheckCapabilities, named by server/routes.go scheduleRunner with the model's full name
      const full = model.includes('/')
        ? model
        : `registry.ollama.ai/library/${model.includes(':') ? model : `${model}:latest`}`;
      return profileError('ollama', 400, `${full} does not support tools`);
    }
    case 'vllm': // vllm/entrypoints/openai/serving_chat.py without --enable-auto-tool-choice
      return profileError(
        'vllm',
        400,
        '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
      );
    case 'llamacpp': // tools/server/utils.hpp oaicompat_chat_params_parse without --jinja
      return profileError('llamacpp', 400, 'tools param requires --jinja flag');
    default:
      return profileError(profile, 400, `${model} does not support tools`);
  }
}

function rateLimitError(profile: ServerProfileName | undefined, seconds: number): StatusResponse {
  const headers = { 'retry-after': String(seconds) };
  if (profile === 'litellm') {
    return {
      ...profileError(
        'litellm',
        429,
        `litellm.RateLimitError: RateLimitError: OpenAIException - Rate limit reached. Please try again in ${seconds}s.`,
      ),
      headers,
    };
  }
  return {
    kind: 'status',
    status: 429,
    headers,
    body: {
      error: {
        message: `Rate limit reached for requests. Please try again in ${seconds}s.`,
        type: 'requests',
        param: null,
        code: 'rate_limit_exceeded',
      },
    },
  };
}

interface Msg {
  role?: string;
  tool_calls?: unknown[];
  reasoning_content?: unknown;
}

function rolesOutOfOrder(messages: Msg[]): boolean {
  let last: string | undefined;
  for (const m of messages) {
    if (m.role === 'system' || m.role === 'developer') continue;
    if (m.role === 'user' && last === 'user') return true;
    if (m.role === 'assistant' && (last === 'assistant' || last === undefined)) return true;
    last = m.role;
  }
  return false;
}

function reasoningMissing(messages: Msg[]): boolean {
  const lastUser = messages.map((m) => m.role).lastIndexOf('user');
  return messages
    .slice(lastUser + 1)
    .some((m) => m.role === 'assistant' && m.tool_calls?.length && typeof m.reasoning_content !== 'string');
}

/**
 * The refusal `checks` calls for on a chat-completions request body, or undefined when it passes.
 * `counts.rateLimited` counts the 429s answered so far (incremented here).
 */
export function checkRequest(
  profile: ServerProfileName | undefined,
  checks: RequestChecks,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a request body as received
  body: any,
  counts: { rateLimited: number },
): ScriptedResponse | undefined {
  const messages: Msg[] = Array.isArray(body?.messages) ? body.messages : [];
  if (checks.rateLimit && counts.rateLimited < (checks.rateLimit.times ?? 1)) {
    counts.rateLimited += 1;
    return rateLimitError(profile, checks.rateLimit.retryAfterSeconds);
  }
  if (checks.rejectTools && Array.isArray(body?.tools) && body.tools.length)
    return toolsError(profile, String(body?.model ?? 'model'));
  if (checks.strictAlternation && rolesOutOfOrder(messages)) return alternationError(profile);
  if (checks.requireReasoningBack && reasoningMissing(messages))
    return profileError(
      'deepseek',
      400,
      'The `reasoning_content` in the thinking mode must be passed back to the API.',
    );
  if (checks.contextLength !== undefined) {
    const prompt = roughPromptTokens(body);
    if (prompt > checks.contextLength) return contextError(profile, prompt, checks.contextLength);
  }
  return undefined;
}

/**
 * A side route of `profile` (model list, context discovery), or undefined when the request is not
 * one. Paths are matched without the query; `body` is the parsed request body.
 */
export function profileInfoRoute(
  profile: ServerProfileName | undefined,
  method: string,
  path: string,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a request body as received
  body: any,
  info: ProfileInfo,
): { status: number; body: unknown } | undefined {
  const p = path.split('?')[0];
  const model = info.models[0] ?? 'model';
  if (!profile) return undefined;
  if (method === 'GET' && p.endsWith('/v1/models')) {
    switch (profile) {
      case 'vllm': // vllm/entrypoints/openai/protocol.py ModelCard
        return ok(
          list(
            info.models.map((id) => ({
              id,
              object: 'model',
              created: 0,
              owned_by: 'vllm',
              root: id,
              parent: null,
              max_model_len: info.contextLength,
              permission: [],
            })),
          ),
        );
      case 'llamacpp': // tools/server/server.cpp handle_models: meta.n_ctx_train is the trained window, not the running one
        return ok({
          ...list(
            info.models.map((id) => ({
              id,
              object: 'model',
              created: 0,
              owned_by: 'llamacpp',
              meta: {
                vocab_type: 2,
                n_vocab: 151936,
                n_ctx_train: info.trainedContextLength,
                n_embd: 3584,
                n_params: 7615616512,
                size: 4677120000,
              },
            })),
          ),
          models: info.models.map((id) => ({
            name: id,
            model: id,
            type: 'model',
            capabilities: ['completion'],
          })),
        });
      case 'ollama': // openai/openai.go ToListCompletion
        return ok(list(info.models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'library' }))));
      default:
        return ok(
          list(
            info.models.map((id) => ({
              id,
              object: 'model',
              created: 0,
              owned_by: profile === 'lmstudio' ? 'organization_owner' : profile,
            })),
          ),
        );
    }
  }
  if (profile === 'llamacpp' && method === 'GET' && p === '/props') {
    // tools/server/server.cpp handle_props
    const props: Record<string, unknown> = {
      total_slots: info.parallelSlots ?? 1,
      model_path: `/models/${model}.gguf`,
      chat_template: '{{ messages }}',
      build_info: 'b6000-0000000',
    };
    if (info.propsLayout !== 'top-level')
      props['default_generation_settings'] = {
        n_ctx: info.contextLength,
        params: { n_predict: -1, temperature: 0.8 },
      };
    if (info.propsLayout !== 'nested') props['n_ctx'] = info.contextLength;
    return ok(props);
  }
  if (profile === 'ollama' && method === 'POST' && p === '/api/show') {
    // server/routes.go ShowHandler: model_info has the trained window, `parameters` the Modelfile's num_ctx
    const name = String(body?.model ?? body?.name ?? '');
    if (!info.models.includes(name)) return { status: 404, body: { error: `model '${name}' not found` } };
    const numCtx = info.defaultContext ? '' : `num_ctx                        ${info.contextLength}\n`;
    return ok({
      license: '',
      modelfile: `FROM ${name}\n${info.defaultContext ? '' : `PARAMETER num_ctx ${info.contextLength}\n`}`,
      parameters: `${numCtx}stop                           "<|im_end|>"`,
      template: '{{ .Prompt }}',
      details: {
        parent_model: '',
        format: 'gguf',
        family: 'qwen2',
        families: ['qwen2'],
        parameter_size: '7.6B',
        quantization_level: 'Q4_K_M',
      },
      model_info: {
        'general.architecture': 'qwen2',
        'general.parameter_count': 7615616512,
        'qwen2.context_length': info.trainedContextLength,
        'qwen2.embedding_length': 3584,
      },
      capabilities: ['completion', 'tools'],
      modified_at: '2026-01-01T00:00:00Z',
    });
  }
  if (profile === 'ollama' && method === 'GET' && p === '/api/tags') {
    // server/routes.go ListHandler
    return ok({
      models: info.models.map((name) => ({
        name,
        model: name,
        modified_at: '2026-01-01T00:00:00Z',
        size: 4683087332,
        digest: '0'.repeat(64),
        details: { format: 'gguf', family: 'qwen2', parameter_size: '7.6B', quantization_level: 'Q4_K_M' },
      })),
    });
  }
  if (profile === 'ollama' && method === 'GET' && p === '/api/ps') {
    // server/routes.go PsHandler: context_length of each loaded model
    return ok({
      models: (info.defaultContext ? [] : info.models).map((name) => ({
        name,
        model: name,
        size: 0,
        digest: '',
        details: {},
        expires_at: '2026-01-01T00:05:00Z',
        size_vram: 0,
        context_length: info.contextLength,
      })),
    });
  }
  if (
    profile === 'lmstudio' &&
    method === 'GET' &&
    (p === '/api/v0/models' || p.startsWith('/api/v0/models/'))
  ) {
    // LM Studio REST API v0 (lmstudio.ai/docs/app/api/endpoints/rest)
    const entry = (id: string) => ({
      id,
      object: 'model',
      type: 'llm',
      publisher: 'lmstudio-community',
      arch: 'qwen2',
      compatibility_type: 'gguf',
      quantization: 'Q4_K_M',
      state: 'loaded',
      max_context_length: info.trainedContextLength,
      loaded_context_length: info.contextLength,
      capabilities: ['tool_use'],
    });
    if (p === '/api/v0/models') return ok(list(info.models.map(entry)));
    const id = decodeURIComponent(p.slice('/api/v0/models/'.length));
    return info.models.includes(id)
      ? ok(entry(id))
      : { status: 404, body: { error: `Model "${id}" not found` } };
  }
  return undefined;
}

const ok = (body: unknown) => ({ status: 200, body });
const list = (data: unknown[]) => ({ object: 'list', data });
