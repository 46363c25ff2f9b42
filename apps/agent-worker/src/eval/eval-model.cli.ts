/**
 * `npm run eval:model -- --base-url URL --model NAME [--api-key KEY] [--questions FILE]
 * [--database-url URL] [--json] [--min-exact RATE]`: scores a model on the shared questions in a
 * scratch database (see `eval-model.ts`). Exit 0, 1 below `--min-exact`, 2 for bad arguments or set-up.
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { connectionFailure } from '@corpus-chat/server-core';
import { loadAgentConfig } from '../agent/agent.config';
import {
  createScratchCorpus,
  defaultQuestionsFile,
  evaluateModel,
  loadQuestionSet,
  type EvalReport,
  type QuestionResult,
} from './eval-model';

const USAGE =
  'usage: npm run eval:model -- --base-url URL --model NAME [--api-key KEY] [--questions FILE] [--database-url URL] [--json] [--min-exact RATE]\n' +
  '  --questions     question file (default: questions/questions.json under SHARED_DIR, else the shared/ folder beside this repository)\n' +
  '  --database-url  Postgres server for the scratch database (default DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres)\n' +
  '  --json          print the whole report as JSON instead of lines\n' +
  '  --min-exact     exit 1 when the exact rate is below RATE (0-1, or a percentage such as 90%)';

class UsageError extends Error {}

/** Reads the command line; throws `UsageError` naming what is missing or malformed. */
function parseCli(argv: string[], env: NodeJS.ProcessEnv = process.env) {
  const { values } = parseArgs({
    args: argv,
    options: {
      'base-url': { type: 'string' },
      model: { type: 'string' },
      'api-key': { type: 'string' },
      questions: { type: 'string' },
      'database-url': { type: 'string' },
      json: { type: 'boolean', default: false },
      'min-exact': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) throw new UsageError('');
  if (!values['base-url']) throw new UsageError('--base-url is required (e.g. http://localhost:11434/v1)');
  if (!values.model) throw new UsageError('--model is required (e.g. qwen2.5:7b-instruct)');
  if (!URL.canParse(values['base-url']))
    throw new UsageError(`--base-url is not a URL: ${values['base-url']}`);
  const questions = values.questions ?? defaultQuestionsFile();
  if (!fs.existsSync(questions)) {
    throw new UsageError(
      `no question file at ${questions}: pass --questions FILE, or set SHARED_DIR to the folder holding questions/ and corpus/`,
    );
  }
  return {
    baseUrl: values['base-url'],
    model: values.model,
    apiKey: values['api-key'],
    questions,
    databaseUrl:
      values['database-url'] ?? env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    json: values.json ?? false,
    minExact: values['min-exact'] === undefined ? undefined : parseRate(values['min-exact']),
  };
}

/** `0.9` or `90%` as the fraction 0.9; throws `UsageError` outside 0–1. */
function parseRate(text: string): number {
  const percent = text.trim().endsWith('%');
  const n = Number(percent ? text.trim().slice(0, -1) : text);
  const rate = percent ? n / 100 : n;
  if (!Number.isFinite(rate) || rate < 0 || rate > 1)
    throw new UsageError(`--min-exact must be a rate between 0 and 1 or a percentage, got ${text}`);
  return rate;
}

/** One line per question: verdict, id, seconds, its turns, then (indented) what was wrong. */
function resultLine(r: QuestionResult): string {
  const problems = [
    r.missingNumbers.length ? `missing numbers: ${r.missingNumbers.join(', ')}` : '',
    r.missingNames.length ? `missing names: ${r.missingNames.join(', ')}` : '',
    r.statedNumbers.length ? `numbers stated where none may be: ${r.statedNumbers.join(', ')}` : '',
    r.unsupported?.length ? `unsupported numbers: ${r.unsupported.join(', ')}` : '',
    r.error ? `error: ${r.error}` : '',
  ].filter(Boolean);
  return `${r.exact ? 'PASS' : 'FAIL'} ${r.id} ${r.seconds.toFixed(1).padStart(6)} s  ${r.turns.join(' → ')}${problems.length ? `\n       ${problems.join('; ')}` : ''}`;
}

/** The closing lines: exact and unverified-number rates. */
function summaryLines(report: EvalReport): string[] {
  const n = report.results.length;
  const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
  return [
    `exact answers:                   ${report.exactCount}/${n} (${pct(report.exactRate)})`,
    `answers with unverified numbers: ${report.unverifiedCount}/${n} (${pct(report.unverifiedRate)})`,
  ];
}

/** Fails the set-up early when the server does not answer `GET <base>/models`; warns when the model is not listed. */
async function checkServer(o: ReturnType<typeof parseCli>): Promise<void> {
  const url = `${o.baseUrl.replace(/\/+$/, '')}/models`;
  let res: Response;
  try {
    res = await fetch(url, {
      headers: o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {},
      signal: AbortSignal.timeout(15_000),
    });
  } catch (e) {
    // The same words Settings → Test connection uses (the cause chain of fetch's TypeError).
    throw new Error(
      `model server ${o.baseUrl} did not answer GET /models: ${connectionFailure({ cause: e } as never, o.baseUrl)}`,
    );
  }
  if (!res.ok)
    throw new Error(
      `model server ${o.baseUrl} answered GET /models with HTTP ${res.status}: ${(await res.text()).slice(0, 300)}`,
    );
  const ids =
    ((await res.json().catch(() => ({}))) as { data?: { id?: string }[] }).data?.map((m) => m.id) ?? [];
  if (ids.length && !ids.includes(o.model))
    console.error(
      `warning: ${o.model} is not among the server's models (${ids.slice(0, 10).join(', ')}); asking anyway`,
    );
}

async function main(argv: string[]): Promise<number> {
  let o: ReturnType<typeof parseCli>;
  try {
    o = parseCli(argv);
  } catch (e) {
    if (e instanceof UsageError && !e.message) {
      console.log(USAGE); // --help
      return 0;
    }
    console.error(`${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  const config = loadAgentConfig(process.env);
  const set = loadQuestionSet(o.questions);
  await checkServer(o);
  if (!o.json) console.log(`importing ${set.files.length} corpus files into a scratch database…`);
  const corpus = await createScratchCorpus(o.databaseUrl, set);
  const abort = new AbortController();
  const stop = () => abort.abort(new Error('interrupted'));
  process.once('SIGINT', stop);
  let report: EvalReport;
  try {
    if (!o.json) console.log(`asking ${set.questions.length} questions of ${o.model} at ${o.baseUrl}`);
    report = await evaluateModel({
      dataSource: corpus.dataSource,
      server: { baseUrl: o.baseUrl, model: o.model, apiKey: o.apiKey },
      questions: set.questions,
      config,
      signal: abort.signal,
      onResult: (r) => !o.json && console.log(resultLine(r)),
    });
  } finally {
    process.off('SIGINT', stop);
    await corpus.drop();
  }
  if (o.json)
    console.log(
      JSON.stringify({ model: o.model, baseUrl: o.baseUrl, questions: o.questions, ...report }, null, 2),
    );
  else for (const line of summaryLines(report)) console.log(line);
  if (o.minExact !== undefined && report.exactRate < o.minExact) {
    if (!o.json) console.log(`below --min-exact ${o.minExact}`);
    return 1;
  }
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e) => {
    console.error(`eval:model set-up failed: ${e instanceof Error ? e.message : e}`);
    process.exit(2);
  },
);
