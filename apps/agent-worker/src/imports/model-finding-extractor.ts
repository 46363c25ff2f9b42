import { Logger } from '@nestjs/common';
import type OpenAI from 'openai';
import {
  EXTRACTION_INSTRUCTIONS,
  EXTRACTION_SCHEMA,
  findingsFromModelAnswer,
  type ChunkExtraction,
  type FindingExtractor,
} from '@corpus-chat/ingest';
import { type ModelSettings } from '@corpus-chat/persistence';
import { discoverContextLength, effectiveContextBudget } from '@corpus-chat/server-core';
import type { AgentConfig } from '../agent/agent.config';
import { countTokens, TOKENS_PER_MESSAGE, TOKENS_REPLY_PRIMING } from '../agent/context/token-counter';
import { defaultClientFactory } from '../agent/model/model-client';

/** Fewest tokens of report text in one chunk, however small the window (a smaller one cannot hold a finding). */
const MIN_CHUNK_TOKENS = 256;

const SCHEMA_JSON = JSON.stringify(EXTRACTION_SCHEMA);

/**
 * The extractor for the configured model, or null for the built-in back end (the report then
 * waits for manual review). A model server outside `MODEL_URL_ALLOWLIST` is not called either.
 * A chunk's answer may take `MODEL_FIRST_TOKEN_TIMEOUT_MS` plus a second (the turns' client is
 * reused); a request holds `AGENT_CONTEXT_TOKENS` at most, or less when the server's window is smaller.
 */
export async function modelFindingExtractor(
  settings: ModelSettings,
  config: Pick<AgentConfig, 'contextTokens' | 'firstTokenTimeoutMs' | 'modelUrlAllowlist'>,
  logger: Logger,
): Promise<FindingExtractor | null> {
  if (settings.backend !== 'openai' || !settings.baseUrl || !settings.model) return null;
  if (!config.modelUrlAllowlist.allows(settings.baseUrl)) {
    logger.warn('the configured model server is not in MODEL_URL_ALLOWLIST; the PDF waits for manual review');
    return null;
  }
  const info = await discoverContextLength(settings.baseUrl, settings.model, settings.apiKey, {
    timeoutMs: 3000,
  });
  return new ModelFindingExtractor(
    defaultClientFactory(settings, config),
    settings.model,
    effectiveContextBudget(info.contextTokens, config.contextTokens),
  );
}

/**
 * Reads findings out of report text with a model: chunks sized to the window, each one completion
 * with `response_format` `json_schema` (the native report schema). An invalid answer or failed
 * request is asked once more, then the chunk is failed.
 */
export class ModelFindingExtractor implements FindingExtractor {
  constructor(
    private readonly client: OpenAI,
    readonly model: string,
    /** Tokens one request may use, answer included. */
    private readonly budget: number,
  ) {}

  /** Tokens of report text per chunk: half of what the instructions and the schema leave, the other half for the answer. */
  get chunkTokens(): number {
    const fixed =
      countTokens(EXTRACTION_INSTRUCTIONS) +
      countTokens(SCHEMA_JSON) +
      2 * TOKENS_PER_MESSAGE +
      TOKENS_REPLY_PRIMING +
      32;
    return Math.max(MIN_CHUNK_TOKENS, Math.floor((this.budget - fixed) / 2));
  }

  /** Line by line (pages stay whole where they fit); a line longer than a chunk is cut by words. */
  chunk(text: string): string[] {
    const limit = this.chunkTokens;
    const chunks: string[] = [];
    let current: string[] = [];
    let used = 0;
    const flush = () => {
      const joined = current.join('').trim();
      if (joined) chunks.push(joined);
      current = [];
      used = 0;
    };
    for (const piece of splitLines(text, limit)) {
      const n = countTokens(piece);
      if (used + n > limit) flush();
      current.push(piece);
      used += n;
    }
    flush();
    return chunks;
  }

  async extract(chunk: string, index: number, total: number): Promise<ChunkExtraction> {
    const first = await this.ask(chunk, index, total);
    return first.ok ? first : this.ask(chunk, index, total);
  }

  private async ask(chunk: string, index: number, total: number): Promise<ChunkExtraction> {
    let answer: string;
    try {
      const completion = await this.client.chat.completions.create({
        model: this.model,
        temperature: 0,
        messages: [
          { role: 'system', content: EXTRACTION_INSTRUCTIONS },
          { role: 'user', content: `Part ${index + 1} of ${total} of the report:\n\n${chunk}` },
        ],
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'native_report', schema: EXTRACTION_SCHEMA, strict: false },
        },
      });
      answer = completion.choices[0]?.message?.content ?? '';
    } catch (e) {
      return { ok: false, error: `the model request failed: ${(e as Error).message}` };
    }
    return findingsFromModelAnswer(answer, this.model, index + 1);
  }
}

/** The text's lines (with their line breaks), any longer than `limit` tokens cut at spaces. */
function* splitLines(text: string, limit: number): Generator<string> {
  for (const line of text.split(/(?<=[\n\f])/)) {
    if (countTokens(line) <= limit) {
      yield line;
      continue;
    }
    let part = '';
    for (const word of line.split(/(?<= )/)) {
      if (part && countTokens(part + word) > limit) {
        yield part;
        part = '';
      }
      part += word;
    }
    if (part) yield part;
  }
}
