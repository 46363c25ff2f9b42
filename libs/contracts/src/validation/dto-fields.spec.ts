import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { AuditQueryDto, EditFindingDto, FeedbackQueryDto, ManualFindingDto } from '../index';

/** Each refused field with its distinct messages. */
const refusals = <T extends object>(cls: new () => T, plain: object) =>
  validateSync(plainToInstance(cls, plain) as object).map((e) => ({
    [e.property]: [...new Set(Object.values(e.constraints ?? {}))],
  }));

describe('shared DTO fields', () => {
  it('takes CWE numbers or nothing, and names the form a CWE must take', () => {
    const manual = { title: 'XSS', severity: 'high' };
    expect(refusals(ManualFindingDto, manual)).toEqual([]);
    expect(refusals(ManualFindingDto, { ...manual, cwe: [79, 89] })).toEqual([]);
    expect(refusals(ManualFindingDto, { ...manual, cwe: ['CWE-79'] })).toEqual([
      { cwe: ['cwe must list CWE numbers (79 for CWE-79)'] },
    ]);
    expect(refusals(EditFindingDto, { reason: 'r', cwe: [0] })).toEqual([
      { cwe: ['cwe must list CWE numbers (79 for CWE-79)'] },
    ]);
    expect(
      refusals(EditFindingDto, { reason: 'r', cwe: Array.from({ length: 21 }, (_, i) => i + 1) }),
    ).toHaveLength(1);
    expect(refusals(EditFindingDto, { reason: 'r', cwe: null })).toHaveLength(1);
  });

  it('takes optional text up to its limit, but not null', () => {
    const manual = { title: 'XSS', severity: 'high' };
    expect(
      refusals(ManualFindingDto, { ...manual, description: 'x'.repeat(20000), location: 'https://x.test' }),
    ).toEqual([]);
    expect(
      refusals(ManualFindingDto, { ...manual, description: 'x'.repeat(20001) }).map((r) => Object.keys(r)),
    ).toEqual([['description']]);
    expect(
      refusals(ManualFindingDto, { ...manual, location: 'x'.repeat(2001) }).map((r) => Object.keys(r)),
    ).toEqual([['location']]);
    expect(refusals(EditFindingDto, { reason: 'r', impact: null }).map((r) => Object.keys(r))).toEqual([
      ['impact'],
    ]);
    expect(refusals(EditFindingDto, { reason: 'r', impact: '' })).toEqual([]);
  });

  it('names the operator filter that is not an operator id', () => {
    expect(refusals(FeedbackQueryDto, { operatorId: 'alice' })).toEqual([
      { operatorId: ['operatorId must be an operator id (a UUID)'] },
    ]);
    expect(refusals(AuditQueryDto, { actorId: 'alice' })).toEqual([
      { actorId: ['actorId must be an operator id (a UUID)'] },
    ]);
    expect(refusals(AuditQueryDto, { actorId: '3f1c2a6e-8d4b-4c1e-9a7f-2b5d6e8f9a01' })).toEqual([]);
  });

  it('reads a page size from the query string and keeps it between 1 and 200', () => {
    expect(refusals(FeedbackQueryDto, { limit: '200' })).toEqual([]);
    expect(plainToInstance(AuditQueryDto, { limit: '25' }).limit).toBe(25);
    for (const limit of ['0', '201', '1.5']) {
      expect(refusals(FeedbackQueryDto, { limit }).map((r) => Object.keys(r))).toEqual([['limit']]);
      expect(refusals(AuditQueryDto, { limit }).map((r) => Object.keys(r))).toEqual([['limit']]);
    }
  });
});
