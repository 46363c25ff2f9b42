import { ConflictException, Injectable, Logger, NotFoundException } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type {
  CorpusOverview,
  CountFindingsByResult,
  CountFindingsQueryDto,
  FindingDetail,
  ReportSummary,
  SearchFindingsQueryDto,
  SearchFindingsResult,
} from '@corpus-chat/contracts';
import {
  corpusOverview,
  countFindingsBy,
  deleteReport,
  findingDetail,
  listReports,
  runReadOnly,
  searchFindings,
  setReportArchived,
} from '@corpus-chat/corpus-queries';
import type { AuthenticatedOperator } from '../auth/current-operator';

/**
 * The shared corpus over HTTP: a thin layer over the query functions of
 * `@corpus-chat/corpus-queries` (every answer is computed there, exact and parameterised).
 */
@Injectable()
export class CorpusService {
  private readonly logger = new Logger(CorpusService.name);

  constructor(private readonly dataSource: DataSource) {}

  listReports(includeArchived: boolean): Promise<ReportSummary[]> {
    return listReports(this.dataSource.manager, { includeArchived });
  }

  /** @throws NotFoundException for an unknown report; ConflictException when restoring would duplicate a live report. */
  async setArchived(id: number, archived: boolean, operator: AuthenticatedOperator): Promise<ReportSummary> {
    const operatorId = operator.id;
    const result = await setReportArchived(this.dataSource.manager, id, archived, { id: operator.id, username: operator.username });
    if (result.status === 'not_found') throw new NotFoundException(`No report has id ${id}.`);
    if (result.status === 'conflict') throw new ConflictException(result.message);
    this.logger.log({ operatorId, reportId: id, archived }, 'report archive flag set');
    return result.report;
  }

  /** @throws NotFoundException for an unknown report; ConflictException when it is not archived. */
  async deleteReport(id: number, operator: AuthenticatedOperator): Promise<void> {
    const result = await deleteReport(this.dataSource.manager, id, { id: operator.id, username: operator.username });
    if (result.status === 'not_found') throw new NotFoundException(`No report has id ${id}.`);
    if (result.status === 'conflict') throw new ConflictException(result.message);
    this.logger.log({ operatorId: operator.id, reportId: id }, 'report deleted');
  }

  /** One snapshot for the page and its total (`runReadOnly`: REPEATABLE READ, READ ONLY). */
  searchFindings(query: SearchFindingsQueryDto): Promise<SearchFindingsResult> {
    return runReadOnly(this.dataSource, (m) => searchFindings(m, { ...query }));
  }

  countFindings(query: CountFindingsQueryDto): Promise<CountFindingsByResult> {
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
