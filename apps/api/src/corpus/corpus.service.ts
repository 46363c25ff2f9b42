import { ConflictException, Injectable, Logger, NotFoundException } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { PassThrough, type Readable } from 'node:stream';
import type {
  CorpusOverview,
  CountFindingsByResult,
  CountFindingsQuery,
  FindingDetail,
  FindingFilterQuery,
  FindingRow,
  ReportSummary,
  SearchFindingsQuery,
  SearchFindingsResult,
} from '@corpus-chat/contracts';
import {
  corpusOverview,
  countFindingsBy,
  deleteReport,
  exportFindingPages,
  findingDetail,
  listReports,
  runReadOnly,
  searchFindings,
  setReportArchived,
} from '@corpus-chat/corpus-queries';
import { recordAuditEvent } from '@corpus-chat/persistence';
import type { AuthenticatedOperator } from '../auth/current-operator';
import { OperatorSlots } from '../auth/operator-slots';
import { ApiEnv } from '../config/api-env';
import { findingCsvLine, findingJson, findingsCsvHeader } from './findings-export';

/** Formats of `GET /api/findings/export.:format`: CSV with a header row, or one JSON array. */
export type FindingsExportFormat = 'csv' | 'json';

/** Exports one operator may run at once (each holds a pooled connection while it downloads). */
const EXPORTS_PER_OPERATOR = 2;

/** An export may page through the whole corpus: each statement gets longer than a page does. */
const EXPORT_STATEMENT_TIMEOUT_MS = 60_000;

/** Writes `chunk`, waiting for the client to drain; throws once the client has gone (ends the read). */
async function writeOrWait(out: PassThrough, chunk: string): Promise<void> {
  if (out.destroyed) throw new Error('findings export aborted: the client closed the connection');
  if (!out.write(chunk)) {
    await new Promise<void>((resolve) => {
      out.once('drain', resolve);
      out.once('close', resolve);
    });
  }
  if (out.destroyed) throw new Error('findings export aborted: the client closed the connection');
}

/**
 * The shared corpus over HTTP: a thin layer over the query functions of
 * `@corpus-chat/corpus-queries` (every answer is computed there, exact and parameterised).
 */
@Injectable()
export class CorpusService {
  private readonly logger = new Logger(CorpusService.name);

  private readonly exportSlots: OperatorSlots;

  constructor(
    private readonly dataSource: DataSource,
    env: ApiEnv,
  ) {
    this.exportSlots = new OperatorSlots(
      'exports',
      EXPORTS_PER_OPERATOR,
      Math.max(1, Math.floor(env.DB_POOL_SIZE / 2)),
    );
  }

  listReports(includeArchived: boolean): Promise<ReportSummary[]> {
    return listReports(this.dataSource.manager, { includeArchived });
  }

  /** @throws NotFoundException for an unknown report; ConflictException when restoring would duplicate a live report. */
  async setArchived(id: number, archived: boolean, operator: AuthenticatedOperator): Promise<ReportSummary> {
    const operatorId = operator.id;
    const result = await setReportArchived(this.dataSource.manager, id, archived, operator);
    if (result.status === 'not_found') throw new NotFoundException(`No report has id ${id}.`);
    if (result.status === 'conflict') throw new ConflictException(result.message);
    this.logger.log({ operatorId, reportId: id, archived }, 'report archive flag set');
    return result.report;
  }

  /** @throws NotFoundException for an unknown report; ConflictException when it is not archived. */
  async deleteReport(id: number, operator: AuthenticatedOperator): Promise<void> {
    const result = await deleteReport(this.dataSource.manager, id, operator);
    if (result.status === 'not_found') throw new NotFoundException(`No report has id ${id}.`);
    if (result.status === 'conflict') throw new ConflictException(result.message);
    this.logger.log({ operatorId: operator.id, reportId: id }, 'report deleted');
  }

  /** One snapshot for the page and its total (`runReadOnly`: REPEATABLE READ, READ ONLY). */
  searchFindings(query: SearchFindingsQuery): Promise<SearchFindingsResult> {
    return runReadOnly(this.dataSource, (m) => searchFindings(m, { ...query }));
  }

  /**
   * Every finding matching `filter` as a stream read in keyset pages inside one read-only snapshot.
   * Resolves after the first page, so a bad filter is a 400 before any byte; audited before the end;
   * a later failure destroys the stream (a cut-off download, never a short one).
   * @throws HttpException 429 while the operator (or the server) runs as many exports as allowed.
   */
  exportFindings(
    filter: FindingFilterQuery,
    format: FindingsExportFormat,
    operator: AuthenticatedOperator,
  ): Promise<Readable> {
    const release = this.exportSlots.take(operator.id);
    const out = new PassThrough();
    out.once('close', release);
    const line = format === 'csv' ? findingCsvLine : (f: FindingRow) => findingJson(f);
    return new Promise<Readable>((resolve, reject) => {
      let started = false;
      let rows = 0;
      runReadOnly(
        this.dataSource,
        async (m) => {
          const pages = exportFindingPages(m, { ...filter });
          let page = await pages.next();
          started = true;
          resolve(out);
          await writeOrWait(out, format === 'csv' ? findingsCsvHeader() : '[');
          while (!page.done) {
            const lines = page.value.map(line).join(format === 'json' ? ',\n' : '');
            await writeOrWait(out, format === 'json' ? (rows ? ',\n' : '\n') + lines : lines);
            rows += page.value.length;
            page = await pages.next();
          }
        },
        { statementTimeoutMs: EXPORT_STATEMENT_TIMEOUT_MS },
      )
        .then(async () => {
          // After the snapshot gave its connection back (a request never holds two, or a full pool
          // deadlocks), and before the last byte, so a client that has the whole file has its event.
          await recordAuditEvent(this.dataSource.manager, {
            action: 'findings.export',
            actor: operator,
            subjectType: 'finding',
            subjectId: null,
            after: { format, filter: { ...filter }, rows },
          });
          this.logger.log({ operatorId: operator.id, format, rows }, 'findings exported');
          out.end(format === 'json' ? '\n]\n' : '');
        })
        .catch((e: unknown) => {
          if (!started) {
            release();
            return reject(e);
          }
          this.logger.warn(
            { operatorId: operator.id, format, rows, err: String(e) },
            'findings export ended early',
          );
          out.destroy(e instanceof Error ? e : new Error(String(e)));
        });
    });
  }

  countFindings(query: CountFindingsQuery): Promise<CountFindingsByResult> {
    const { groupBy, limit: _limit, offset: _offset, ...filter } = query;
    return countFindingsBy(this.dataSource.manager, { groupBy, filter });
  }

  /** @throws NotFoundException for an unknown id. */
  async findingDetail(id: number): Promise<FindingDetail> {
    const result = await findingDetail(this.dataSource.manager, id);
    if (!result.found) throw new NotFoundException(`No finding has id ${id}.`);
    return result.finding;
  }

  overview(): Promise<CorpusOverview> {
    return corpusOverview(this.dataSource.manager);
  }
}
