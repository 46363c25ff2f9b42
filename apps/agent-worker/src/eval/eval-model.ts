/**
 * Model evaluation: asks a `shared/questions/` set through the worker's model path and scores each
 * answer as the questions' README says.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import type { AssistantMessageMetadata } from '@corpus-chat/contracts';
import { CorpusTools, defaultCorpusQueries, defaultReadOnly } from '@corpus-chat/corpus-queries';
import { createDataSource } from '@corpus-chat/persistence';
import { importReport } from '@corpus-chat/ingest';
import type { HistoryMessage } from '@corpus-chat/server-core';
import { agentConfig, type AgentConfig } from '../agent/agent.config';
import { OpenAiModelRunner } from '../agent/model/openai-model-runner';
import { scoreAnswer, type AnswerScore, type ExpectedAnswer } from './answer-score';

/** One question: the operator's messages in one thread, and what the answer to the last must hold. */
export interface EvalQuestion {
  id: string;
  turns: string[];
  expect: ExpectedAnswer;
}

/** A question file with its corpus resolved to absolute paths. */
export interface QuestionSet {
  /** Folder the corpus file paths are relative to. */
  corpusRoot: string;
  /** The scanner files to import, relative to `corpusRoot`. */
  files: string[];
  questions: EvalQuestion[];
}

/** `shared/questions/questions.json`: `$SHARED_DIR/questions/…`, else the `shared` folder beside the repository. */
export function defaultQuestionsFile(): string {
  const shared = process.env['SHARED_DIR']
    ? path.resolve(process.env['SHARED_DIR'])
    : path.resolve(__dirname, '..', '..', '..', '..', '..', 'shared');
  return path.join(shared, 'questions', 'questions.json');
}

/** Reads a question file (`corpus.root` relative to the folder holding `shared/`); throws when malformed. */
export function loadQuestionSet(file: string): QuestionSet {
  const raw = JSON.parse(fs.readFileSync(file, 'utf8')) as {
    corpus?: { root?: string; files?: string[] };
    questions?: EvalQuestion[];
  };
  if (!raw.corpus?.root || !Array.isArray(raw.corpus.files) || !Array.isArray(raw.questions)) {
    throw new Error(
      `${file}: expected { corpus: { root, files }, questions } as in shared/questions/README.md`,
    );
  }
  return {
    corpusRoot: path.resolve(path.dirname(file), '..', '..', raw.corpus.root),
    files: raw.corpus.files,
    questions: raw.questions,
  };
}

/**
 * Creates a scratch database on `serverUrl`'s server, migrates and imports `set.files`; `drop`
 * closes and drops it. Throws (after dropping it) when anything fails: scores on a partial corpus
 * mean nothing.
 */
export async function createScratchCorpus(
  serverUrl: string,
  set: QuestionSet,
): Promise<{ dataSource: DataSource; drop: () => Promise<void> }> {
  const admin = new URL(serverUrl);
  admin.pathname = '/postgres';
  const name = `corpus_chat_eval_${process.pid}_${crypto.randomBytes(4).toString('hex')}`;
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  await withClient(admin.toString(), (c) => c.query(`CREATE DATABASE "${name}"`));
  const dataSource = createDataSource(url.toString());
  const drop = async () => {
    if (dataSource.isInitialized) await dataSource.destroy();
    await withClient(admin.toString(), (c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
  };
  try {
    await dataSource.initialize();
    await dataSource.runMigrations({ transaction: 'each' });
    for (const f of set.files) {
      const outcome = await importReport(dataSource, {
        filename: f,
        bytes: fs.readFileSync(path.join(set.corpusRoot, f)),
      });
      if (!outcome.ok) throw new Error(`corpus file ${f} was refused: ${outcome.error}`);
    }
  } catch (e) {
    await drop().catch(() => undefined);
    throw e;
  }
  return { dataSource, drop };
}

async function withClient<T>(url: string, fn: (c: Client) => Promise<T>): Promise<T> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** The outcome of one question (`exact` is false when a turn failed). */
export interface QuestionResult extends AnswerScore {
  id: string;
  /** The operator's messages, in order; the answer to the last is scored. */
  turns: string[];
  /** `metadata.verification.unsupported` of the answer, when the runner checked it. */
  unsupported?: string[];
  /** Seconds for all the question's turns. */
  seconds: number;
  /** The answer to the last turn ('' when a turn failed). */
  answer: string;
  /** Why a turn failed (model server error, step limit, …); the question then counts as not exact. */
  error?: string;
}

/** A whole run. Rates are fractions (0–1) of all questions asked. */
export interface EvalReport {
  results: QuestionResult[];
  exactCount: number;
  exactRate: number;
  /** Answers whose `metadata.verification.unsupported` is non-empty. */
  unverifiedCount: number;
  unverifiedRate: number;
}

/**
 * Asks each question in a new thread through `OpenAiModelRunner`, with the history the worker
 * would keep, and scores the last answer. A failed turn is recorded with `error`; never throws.
 */
export async function evaluateModel(opts: {
  dataSource: DataSource;
  /** The model server to evaluate (`baseUrl` OpenAI-compatible, e.g. `http://localhost:11434/v1`). */
  server: { baseUrl: string; model: string; apiKey?: string | null };
  questions: EvalQuestion[];
  config?: Partial<AgentConfig>;
  signal?: AbortSignal;
  onResult?: (result: QuestionResult, index: number) => void;
}): Promise<EvalReport> {
  const runner = new OpenAiModelRunner(
    new CorpusTools(opts.dataSource, defaultCorpusQueries, defaultReadOnly),
    agentConfig(opts.config),
  );
  const settings = {
    backend: 'openai' as const,
    baseUrl: opts.server.baseUrl,
    model: opts.server.model,
    apiKey: opts.server.apiKey ?? null,
    updatedAt: null,
  };
  const signal = opts.signal ?? new AbortController().signal;
  const results: QuestionResult[] = [];
  for (const [index, q] of opts.questions.entries()) {
    const started = performance.now();
    const history: HistoryMessage[] = [];
    let answer = '';
    let metadata: AssistantMessageMetadata | undefined;
    let error: string | undefined;
    for (const message of q.turns) {
      try {
        const outcome = await runner.run(
          {
            chatId: `eval-${q.id}`,
            turnId: crypto.randomUUID(),
            ownerId: 'eval',
            history: [...history],
            userMessage: message,
            signal,
            emit: async () => undefined,
          },
          settings,
        );
        answer = outcome.content;
        metadata = outcome.metadata;
        history.push({ role: 'user', content: message, status: 'complete', metadata: {} });
        history.push({ role: 'assistant', content: answer, status: 'complete', metadata });
      } catch (e) {
        signal.throwIfAborted();
        error = (e as Error).message;
        answer = '';
        metadata = undefined;
        break;
      }
    }
    const score = scoreAnswer(q.expect, answer);
    const result: QuestionResult = {
      id: q.id,
      turns: q.turns,
      ...score,
      exact: !error && score.exact,
      ...(metadata?.verification ? { unsupported: metadata.verification.unsupported } : {}),
      seconds: (performance.now() - started) / 1000,
      answer,
      ...(error ? { error } : {}),
    };
    results.push(result);
    opts.onResult?.(result, index);
  }
  const exactCount = results.filter((r) => r.exact).length;
  const unverifiedCount = results.filter((r) => r.unsupported?.length).length;
  const of = (n: number) => (results.length ? n / results.length : 0);
  return {
    results,
    exactCount,
    exactRate: of(exactCount),
    unverifiedCount,
    unverifiedRate: of(unverifiedCount),
  };
}
