import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Client } from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { IMPORT_SOCKET_EVENT, type ImportJobView } from '@corpus-chat/contracts';
import { parseForImport } from '@corpus-chat/ingest';
import { ApiSession } from '../lib/api-client';
import { type BenchContext, goalFigure, latencyFigure, type ScenarioResult } from '../lib/report';
import { fmt, nowMs, summarize } from '../lib/stats';
import { uploadImports, writeSarif } from './s7-import-load';

const SARIF_DIR = '/work/shared/corpus/scans/sarif';
/** The largest shared SARIF file under 1 MB (1,011,701 bytes), and a small one (69 KB). */
const ONE_MB = 'sechub__owaspzap-mock-large.sarif.json';
const SMALL = 'sechub__owasp_zap.sarif.json';

/**
 * A copy of a shared SARIF file with `copy` written into its first run's properties: still the same
 * report, but new bytes, so the API does not refuse it as a duplicate (the content hash).
 */
function variant(dir: string, source: string, copy: string): string {
  const doc = JSON.parse(fs.readFileSync(path.join(SARIF_DIR, source), 'utf8'));
  doc.runs[0].properties = { ...doc.runs[0].properties, benchCopy: copy };
  const file = path.join(dir, `${copy}-${source}`);
  fs.writeFileSync(file, JSON.stringify(doc));
  return file;
}

/** Times a COPY of the same rows (columns that are not generated) into a scratch table of the same shape. */
async function timedCopy(
  client: Client,
  table: string,
  where: string,
): Promise<{ ms: number; rows: number }> {
  const { rows: cols } = await client.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns WHERE table_name = $1 AND table_schema = 'public' AND is_generated = 'NEVER' ORDER BY ordinal_position`,
    [table],
  );
  const list = cols.map((c) => `"${c.column_name}"`).join(', ');
  const chunks: Buffer[] = [];
  const out = client.query(copyTo(`COPY (SELECT ${list} FROM ${table} WHERE ${where}) TO STDOUT`));
  for await (const chunk of out) chunks.push(chunk as Buffer);
  await client.query(`DROP TABLE IF EXISTS s8_copy_${table}`);
  await client.query(`CREATE TABLE s8_copy_${table} (LIKE ${table} INCLUDING ALL)`);
  const t0 = nowMs();
  const into = client.query(copyFrom(`COPY s8_copy_${table} (${list}) FROM STDIN`));
  await pipeline(async function* () {
    yield* chunks;
  }, into);
  const ms = nowMs() - t0;
  await client.query(`DROP TABLE s8_copy_${table}`);
  return { ms, rows: into.rowCount };
}

/**
 * Scenario 8 — import speed: upload → `ready` of small files, ten in one request, and a ~50 MB
 * file beside its bare parse and COPY. An imports-only worker runs beside a turns-only one
 * (`S8_SHARED_WORKER=1`: one worker for both); `IMPORT_CONCURRENCY` goes to the importing worker.
 */
export async function scenario8(ctx: BenchContext): Promise<ScenarioResult> {
  const { stack, log } = ctx;
  const reps = ctx.quick ? 5 : 12;
  const bigBytes = ctx.quick ? 10 * 1024 * 1024 : 49 * 1024 * 1024;
  const concurrency = process.env['IMPORT_CONCURRENCY'] ?? '1';
  const api = await stack.startApi();
  const shared = process.env['S8_SHARED_WORKER'] === '1';
  await stack.startWorkers(1, {
    env: { IMPORT_CONCURRENCY: concurrency, WORKER_QUEUES: shared ? 'turns,imports' : 'imports' },
  });
  if (!shared) await stack.startWorkers(1, { env: { WORKER_QUEUES: 'turns' } });
  const layout = shared
    ? `One agent-worker taking turns and imports (IMPORT_CONCURRENCY ${concurrency}, storing paced)`
    : `An imports-only agent-worker (IMPORT_CONCURRENCY ${concurrency}, storing unpaced) beside a turns-only one`;
  const session = await ApiSession.login(api.baseUrl, stack.adminUser, stack.adminPassword);
  const socket = await session.connectSocket();
  const imports = new Map<string, { job: ImportJobView; at: number }>();
  socket.on(IMPORT_SOCKET_EVENT, (job: ImportJobView) => imports.set(job.id, { job, at: nowMs() }));
  const dir = path.join(ctx.logsDir, 's8-files');
  fs.mkdirSync(dir, { recursive: true });

  /** Uploads `files` in one request (curl, another process, as a browser) → ms until each is ready. */
  const upload = async (files: string[]): Promise<{ ms: number[]; jobs: ImportJobView[] }> => {
    const t0 = nowMs();
    const queued = await uploadImports(
      session,
      files.map((f) => `files=@${f}`),
    );
    const ended = () =>
      queued.every(
        (q) => imports.get(q.id) && !['queued', 'parsing'].includes(imports.get(q.id)!.job.status),
      );
    while (!ended()) {
      if (nowMs() - t0 > 600_000) throw new Error('imports not ended within 10 minutes');
      await new Promise((r) => socket.once(IMPORT_SOCKET_EVENT, r));
    }
    const jobs = queued.map((q) => imports.get(q.id)!.job);
    const failed = jobs.find((j) => j.status !== 'ready');
    if (failed) throw new Error(`import of ${failed.file} ended ${failed.status}: ${failed.error}`);
    return { ms: queued.map((q) => imports.get(q.id)!.at - t0), jobs };
  };

  // Warm-up: the first import compiles the importer's code paths in the worker.
  await upload([variant(dir, SMALL, 'warm')]);
  const oneMb: number[] = [];
  const small: number[] = [];
  for (let i = 0; i < reps; i++) {
    oneMb.push((await upload([variant(dir, ONE_MB, `one${i}`)])).ms[0]);
    small.push((await upload([variant(dir, SMALL, `small${i}`)])).ms[0]);
  }
  log(`s8: one 1 MB file → ready ${oneMb.map((x) => x.toFixed(0)).join(', ')} ms`);
  const ten = await upload(Array.from({ length: 10 }, (_, i) => variant(dir, ONE_MB, `ten${i}`)));
  const tenAll = Math.max(...ten.ms);
  log(`s8: ten 1 MB files together → all ready in ${tenAll.toFixed(0)} ms`);

  const big = path.join(dir, 's8-big.sarif');
  const results = writeSarif(big, bigBytes, 8);
  const size = fs.statSync(big).size;
  const bigRun = await upload([big]);
  const bigMs = bigRun.ms[0];
  const outcome = bigRun.jobs[0].outcome;
  if (!outcome?.ok) throw new Error('the large import has no report');
  log(
    `s8: ${(size / 1048576).toFixed(1)} MiB → ready in ${bigMs.toFixed(0)} ms (${outcome.findingCount} findings)`,
  );
  await stack.stopAll(); // the parse and COPY below run alone
  const bytes = fs.readFileSync(big);
  const p0 = nowMs();
  const parsed = await parseForImport('s8-big.sarif', bytes);
  const parseMs = nowMs() - p0;
  if ('ok' in parsed) throw new Error(`parse refused the file: ${parsed.ok ? '' : parsed.error}`);
  const client = new Client({ connectionString: stack.databaseUrl });
  await client.connect();
  const report = outcome.reportId;
  const findings = await timedCopy(client, 'findings', `report_id = ${report}`);
  const versions = await timedCopy(
    client,
    'finding_versions',
    `finding_id IN (SELECT id FROM findings WHERE report_id = ${report})`,
  );
  await client.end();
  fs.rmSync(dir, { recursive: true, force: true });
  const copyMs = findings.ms + versions.ms;
  const ratio = bigMs / (parseMs + copyMs);
  const oneSummary = summarize(oneMb);
  return {
    id: 8,
    title: 'Import speed: upload → ready',
    figures: [
      latencyFigure(`one ${ONE_MB} (0.96 MiB) → ready`, oneSummary, undefined, { p: 'p50', ms: 1500 }),
      latencyFigure(`one ${SMALL} (69 KB) → ready`, summarize(small)),
      goalFigure(
        'ten 0.96 MiB files in one request → all ready',
        'ms',
        tenAll,
        '≤ 10000 ms',
        tenAll <= 10_000,
      ),
      { name: `${(size / 1048576).toFixed(1)} MiB file → ready`, unit: 'ms', value: bigMs },
      { name: 'its parse alone (parseForImport, harness process)', unit: 'ms', value: parseMs },
      { name: 'COPY of its stored rows (findings + finding_versions)', unit: 'ms', value: copyMs },
      { name: 'upload → ready ÷ (parse + COPY)', unit: '×', value: ratio, goal: '≤ 1.5×', met: ratio <= 1.5 },
    ],
    markdown: [
      `${layout}, the API, a Socket.IO client waiting for each import's \`ready\`; files uploaded by curl as multipart. Each upload is a shared file with \`runs[0].properties.benchCopy\` set to a new value (new bytes, same report: not a duplicate). ${reps} repetitions of the 1 MB and the 69 KB file, alternating, after one warm-up import; then ten copies of the 1 MB file in one request (each ready at ${ten.ms.map((x) => (x / 1000).toFixed(1)).join(', ')} s); then a generated ${(size / 1048576).toFixed(1)} MiB SARIF file (${results} results, ${outcome.findingCount} findings). With the stack stopped, the harness parsed its bytes (${fmt(parseMs)} ms) and COPYed the rows the import stored (${findings.rows} findings ${fmt(findings.ms)} ms + ${versions.rows} finding_versions ${fmt(versions.ms)} ms) into scratch tables \`LIKE … INCLUDING ALL\` (same columns, indexes and constraints).`,
    ],
    raw: { oneMb, small, ten: ten.ms, bigMs, parseMs, copy: { findings, versions }, size, results },
  };
}
