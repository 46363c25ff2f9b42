import { ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type {
  AddFindingNoteDto,
  BulkStatusResult,
  EditFindingDto,
  FindingDetail,
  FindingHistory,
  RecordRetestDto,
  SetFindingStatusDto,
} from '@corpus-chat/contracts';
import {
  addFindingNote,
  editFinding,
  findingDetail,
  findingHistory,
  recordRetest,
  setFindingStatus,
} from '@corpus-chat/corpus-queries';
import type { AuthenticatedOperator } from '../auth/current-operator';

/** Triage writes over HTTP: a thin layer over `@corpus-chat/corpus-queries`' triage functions. */
@Injectable()
export class FindingTriageService {
  constructor(private readonly dataSource: DataSource) {}

  /** @throws NotFoundException naming unknown ids; ConflictException for a transition not allowed (nothing written). */
  async setStatus(
    ids: number[],
    dto: SetFindingStatusDto,
    operator: AuthenticatedOperator,
  ): Promise<BulkStatusResult> {
    const result = await setFindingStatus(this.dataSource.manager, {
      ids,
      status: dto.status,
      reason: dto.reason,
      actor: operator,
    });
    if (result.status === 'not_found') {
      throw new NotFoundException(`No finding has id ${result.ids.join(', ')}; nothing was changed.`);
    }
    if (result.status === 'conflict') throw new ConflictException(result.message);
    return { status: dto.status, changed: result.changed };
  }

  /** @throws NotFoundException for an unknown id. */
  async edit(id: number, dto: EditFindingDto, operator: AuthenticatedOperator): Promise<void> {
    const { reason, ...changes } = dto;
    const result = await editFinding(this.dataSource.manager, id, changes, reason, operator);
    if (result.status === 'not_found') throw new NotFoundException(`No finding has id ${id}.`);
  }

  /** @throws NotFoundException for an unknown id. */
  async addNote(id: number, dto: AddFindingNoteDto, operator: AuthenticatedOperator): Promise<void> {
    const result = await addFindingNote(this.dataSource.manager, id, dto, operator);
    if (result.status === 'not_found') throw new NotFoundException(`No finding has id ${id}.`);
  }

  /** @throws NotFoundException for an unknown id. */
  async recordRetest(id: number, dto: RecordRetestDto, operator: AuthenticatedOperator): Promise<void> {
    const result = await recordRetest(
      this.dataSource.manager,
      id,
      {
        tried: dto.tried,
        retestedAt: new Date(dto.retestedAt),
        verdict: dto.verdict,
        rationale: dto.rationale,
      },
      operator,
    );
    if (result.status === 'not_found') throw new NotFoundException(`No finding has id ${id}.`);
  }

  history(id: number): Promise<FindingHistory | null> {
    return findingHistory(this.dataSource.manager, id);
  }

  /** @throws NotFoundException for an unknown id. */
  async detail(id: number): Promise<FindingDetail> {
    const result = await findingDetail(this.dataSource.manager, id);
    if (!result.found) throw new NotFoundException(`No finding has id ${id}.`);
    return result.finding;
  }
}
