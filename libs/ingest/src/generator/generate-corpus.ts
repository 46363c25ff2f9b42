import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { DataSource, QueryRunner } from 'typeorm';
import type { Severity } from '@corpus-chat/contracts';
import { mulberry32 } from './prng';
import { COMPONENTS, HOSTS, PACKAGES, PARAMS, PATHS, SOURCE_FILES, TOOLS } from './scenery';
import { COOKIE_ASIDE, OPENINGS, WEAKNESSES, type WeaknessTemplate } from './vocabulary';
import { reserveIds } from '../importers/persist-report';

export interface GenerateCorpusOptions {
  /** Number of findings to create. */
  findings: number;
  /** Average findings per report (default 2000; at least one report). */
  findingsPerReport?: number;
  /** PRNG seed, for a reproducible corpus (default 1). */
  seed?: number;
  /** Prefix of every report file name (default `synthetic`). */
  filenamePrefix?: string;
  /** Extra keys for every report's doc_metadata. */
  metadata?: Record<string, unknown>;
  /**
   * Drop the secondary indexes of findings/finding_versions before loading and rebuild them after
   * (much faster for large loads; takes an exclusive lock on both tables meanwhile). Default: on
   * from 50 000 findings.
   */
  rebuildIndexes?: boolean;
  /** VACUUM ANALYZE the corpus tables afterwards so index-only counts apply (default true). */
  vacuum?: boolean;
  /** Progress callback (findings written so far). */
  onProgress?: (written: number, total: number) => void;
}

export interface GenerateCorpusResult {
  reports: number;
  findings: number;
  milliseconds: number;
}

const SEVERITY_ORDER: Severity[] = ['critical', 'high', 'medium', 'low', 'info'];
const BATCH = 50_000;

/** Picks by weight; `cumulative` are running sums of the weights. */
function weighted<T>(items: T[], cumulative: number[], r: number): T {
  const x = r * cumulative[cumulative.length - 1];
  let lo = 0;
  let hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cumulative[mid] > x) hi = mid;
    else lo = mid + 1;
  }
  return items[lo];
}
const running = (ws: number[]): number[] =>
  ws.reduce<number[]>((acc, w) => [...acc, (acc[acc.length - 1] ?? 0) + w], []);

/** COPY text format (PostgreSQL "COPY … FROM STDIN", text format): escapes, `\N` for null. */
function copyField(v: string | number | null): string {
  if (v === null) return '\\N';
  if (typeof v === 'number') return String(v);
  return v.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
}

interface GeneratedVersion {
  title: string;
  severity: Severity;
  description: string;
  impact: string | null;
  attackVector: string | null;
  endpoints: string[];
  cwe: number[];
  cvss: { base_score: number } | null;
  mitre: string[];
}

/** Makes findings from the vocabulary; deterministic for a seed. */
class FindingFactory {
  private readonly rnd: () => number;
  private readonly templateCum = running(WEAKNESSES.map((w) => w.weight));
  private readonly openingCum = running(OPENINGS.map((o) => o.weight));

  constructor(seed: number) {
    this.rnd = mulberry32(seed);
  }

  pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.rnd() * list.length)];
  }

  chance(p: number): boolean {
    return this.rnd() < p;
  }

  private fill(text: string, ctx: Record<string, string>): string {
    return text.replace(/\{(\w+)\}/g, (_, k: string) => ctx[k] ?? k);
  }

  private severityOf(t: WeaknessTemplate): Severity {
    return weighted(SEVERITY_ORDER, running(t.severity), this.rnd());
  }

  make(tool: (typeof TOOLS)[number]): GeneratedVersion {
    const t = weighted(WEAKNESSES, this.templateCum, this.rnd());
    const [pkg, ver] = this.pick(PACKAGES);
    const ctx = {
      component: this.pick(COMPONENTS),
      param: this.pick(PARAMS),
      path: this.pick(PATHS),
      file: this.pick(SOURCE_FILES),
      pkg,
      ver,
    };
    const severity = this.severityOf(t);
    const opening = this.pick(weighted(OPENINGS, this.openingCum, this.rnd()).text);
    const isCookie = t.titles.some((x) => /cookie/i.test(x));
    const aside = !isCookie && this.chance(0.035) ? ` ${COOKIE_ASIDE}` : '';
    const host = this.pick(HOSTS);
    const endpoint =
      tool.format === 'sarif'
        ? `${ctx.file}:${1 + Math.floor(this.rnd() * 900)}`
        : tool.format === 'trivy'
          ? `${pkg}@${ver}`
          : `https://${host}${ctx.path}`;
    const score = {
      critical: 9 + this.rnd(),
      high: 7 + this.rnd() * 1.9,
      medium: 4 + this.rnd() * 2.9,
      low: 0.1 + this.rnd() * 3.8,
      info: 0,
    }[severity];
    return {
      title: this.fill(this.pick(t.titles), ctx),
      severity,
      description: `${opening} ${this.fill(this.pick(t.details), ctx)}${aside}`,
      impact: this.chance(0.8) ? this.fill(this.pick(t.impacts), ctx) : null,
      attackVector: t.vectors && this.chance(0.6) ? this.fill(this.pick(t.vectors), ctx) : null,
      endpoints: [endpoint],
      cwe: t.cwe.length && this.chance(0.85) ? t.cwe : [],
      cvss: severity === 'info' ? null : { base_score: Math.round(Math.min(10, score) * 10) / 10 },
      mitre: t.mitre ?? [],
    };
  }
}

/** The pg client a TypeORM query runner holds (for COPY): `connect()` answers it once connected. */
async function pgClient(runner: QueryRunner): Promise<PoolClient> {
  return (await runner.connect()) as PoolClient;
}

async function copyRows(client: PoolClient, sql: string, rows: Iterable<string>): Promise<void> {
  await pipeline(Readable.from(rows), client.query(copyFrom(sql)));
}

/** Secondary indexes of the two big tables (not those backing constraints), with their definitions. */
async function secondaryIndexes(runner: QueryRunner): Promise<{ name: string; def: string }[]> {
  return runner.query(
    `SELECT i.indexname AS name, i.indexdef AS def FROM pg_indexes i
     WHERE i.schemaname = current_schema() AND i.tablename IN ('findings', 'finding_versions')
       AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`,
  );
}

/**
 * Generates a synthetic corpus from `vocabulary.ts`'s templates, COPYed in batches of 50 000 in
 * one transaction, searchable columns filled as the importer does. Bumps the corpus version.
 */
export async function generateCorpus(
  dataSource: DataSource,
  options: GenerateCorpusOptions,
): Promise<GenerateCorpusResult> {
  const started = Date.now();
  const total = Math.max(0, Math.floor(options.findings));
  const perReport = Math.max(1, Math.floor(options.findingsPerReport ?? 2000));
  const reportCount = Math.max(1, Math.ceil(total / perReport));
  const prefix = options.filenamePrefix ?? 'synthetic';
  const factory = new FindingFactory(options.seed ?? 1);
  const rebuild = options.rebuildIndexes ?? total >= 50_000;

  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.startTransaction();
    await runner.query(`SELECT set_config('maintenance_work_mem', '512MB', true)`);

    const tools = Array.from({ length: reportCount }, (_, i) => TOOLS[i % TOOLS.length]);
    const sizes = Array.from(
      { length: reportCount },
      (_, i) => Math.floor(total / reportCount) + (i < total % reportCount ? 1 : 0),
    );
    const reports: { id: number }[] = await runner.query(
      `INSERT INTO reports (filename, format, status, finding_count, doc_metadata)
       SELECT f, fmt, 'ready', n, md::jsonb FROM unnest($1::text[], $2::text[], $3::int[], $4::text[]) AS u(f, fmt, n, md)
       RETURNING id`,
      [
        tools.map((t, i) => `${prefix}-${t.name}-${String(i + 1).padStart(4, '0')}.${t.ext}`),
        tools.map((t) => t.format),
        sizes,
        tools.map((t) =>
          JSON.stringify({
            tool: { name: t.name, version: null },
            synthetic: true,
            generator: 'corpus-chat synthetic corpus',
            ...options.metadata,
          }),
        ),
      ],
    );

    let dropped: { name: string; def: string }[] = [];
    if (rebuild) {
      dropped = await secondaryIndexes(runner);
      for (const ix of dropped) await runner.query(`DROP INDEX ${JSON.stringify(ix.name)}`);
    }

    const client = await pgClient(runner);
    let reportIndex = 0;
    let leftInReport = sizes[0] ?? 0;
    let written = 0;
    while (written < total) {
      const n = Math.min(BATCH, total - written);
      const edits = new Set<number>();
      for (let i = 0; i < n; i++) if (factory.chance(0.02)) edits.add(i);
      const findingIds = await reserveIds(runner.manager, 'findings', n);
      const versionIds = await reserveIds(runner.manager, 'finding_versions', n + edits.size);

      const versionLines: string[] = [];
      const findingLines: string[] = [];
      const verdictLines: string[] = [];
      let v = 0;
      for (let i = 0; i < n; i++) {
        while (leftInReport === 0) leftInReport = sizes[++reportIndex];
        leftInReport--;
        const reportId = reports[reportIndex].id;
        const first = factory.make(tools[reportIndex]);
        const versions = [first];
        if (edits.has(i)) {
          const sev = SEVERITY_ORDER[Math.max(0, SEVERITY_ORDER.indexOf(first.severity) - 1)];
          versions.push({
            ...first,
            severity: sev,
            description: `${first.description} Confirmed during manual review.`,
          });
        }
        versions.forEach((ver, k) => {
          versionLines.push(
            [
              versionIds[v + k],
              findingIds[i],
              k + 1,
              k === 0 ? 'import' : 'edit',
              ver.title,
              ver.severity,
              ver.description,
              ver.impact,
              ver.attackVector,
              JSON.stringify(ver.endpoints),
              '[]',
              `{${ver.cwe.join(',')}}`,
              ver.cvss ? JSON.stringify(ver.cvss) : null,
              JSON.stringify(ver.mitre),
              k === 0 ? null : 'reviewer',
              k === 0 ? null : 'severity confirmed',
            ]
              .map(copyField)
              .join('\t') + '\n',
          );
        });
        v += versions.length;
        let verdict = '\\N';
        if (factory.chance(0.05)) {
          verdict = factory.pick(['still_open', 'still_open', 'fixed', 'fixed', 'fixed', 'inconclusive']);
          verdictLines.push(`${findingIds[i]}\t${verdict}\t${factory.pick(['agent', 'operator'])}\n`);
        }
        findingLines.push(`${findingIds[i]}\t${reportId}\t${versionIds[v - 1]}\t${verdict}\n`);
      }
      await copyRows(
        client,
        `COPY finding_versions (id, finding_id, version, origin, title, severity, description, impact, attack_vector,
           affected_endpoints, reproduction_steps, cwe, cvss, mitre, edited_by, reason) FROM STDIN`,
        versionLines,
      );
      await runner.query(
        `CREATE TEMP TABLE IF NOT EXISTS gen_findings (id int, report_id int, current_version_id int, latest_verdict text) ON COMMIT DROP`,
      );
      await runner.query(`TRUNCATE gen_findings`);
      await copyRows(
        client,
        `COPY gen_findings (id, report_id, current_version_id, latest_verdict) FROM STDIN`,
        findingLines,
      );
      await runner.query(
        `INSERT INTO findings (id, report_id, current_version_id, severity, cwe, latest_verdict)
         SELECT g.id, g.report_id, fv.id, fv.severity, fv.cwe, g.latest_verdict
         FROM gen_findings g JOIN finding_versions fv ON fv.id = g.current_version_id
         ORDER BY g.id`,
      );
      if (verdictLines.length)
        await copyRows(client, `COPY verdicts (finding_id, status, actor) FROM STDIN`, verdictLines);
      written += n;
      options.onProgress?.(written, total);
    }

    // Run the deferred foreign-key checks now: an index cannot be built while they are pending.
    await runner.query(`SET CONSTRAINTS ALL IMMEDIATE`);
    for (const ix of dropped) await runner.query(ix.def);
    await runner.commitTransaction();
  } catch (e) {
    if (runner.isTransactionActive) await runner.rollbackTransaction();
    throw e;
  } finally {
    await runner.release();
  }
  if (options.vacuum ?? true)
    await dataSource.query(`VACUUM (ANALYZE) reports, findings, finding_versions, verdicts`);
  return { reports: reportCount, findings: total, milliseconds: Date.now() - started };
}

/** Marker in the report metadata and file names of the demo corpus. */
export const DEMO_MARKER = 'demo';

/**
 * Creates the demo corpus for `npm start` when the database has none yet: synthetic findings in
 * reports named `demo__synthetic-…` whose metadata says `demo: true` and that the data is synthetic
 * (not a real scan). Returns `skipped: true` when demo reports already exist.
 */
export async function generateDemoCorpus(
  dataSource: DataSource,
  options: { findings: number; seed?: number },
): Promise<GenerateCorpusResult & { skipped: boolean }> {
  const [existing]: { n: number }[] = await dataSource.query(
    `SELECT count(*)::int AS n FROM reports WHERE doc_metadata ->> 'demo' = 'true'`,
  );
  if (existing.n > 0) return { reports: existing.n, findings: 0, milliseconds: 0, skipped: true };
  const result = await generateCorpus(dataSource, {
    findings: options.findings,
    seed: options.seed ?? 42,
    findingsPerReport: 500,
    filenamePrefix: `${DEMO_MARKER}__synthetic`,
    metadata: { demo: true, note: 'Synthetic demo data generated by corpus-chat; not a real scan.' },
  });
  return { ...result, skipped: false };
}
