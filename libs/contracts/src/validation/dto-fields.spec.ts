import {
  AuditQueryDto,
  checkArgs,
  EditFindingDto,
  FeedbackQueryDto,
  ManualFindingDto,
  type ZodDtoClass,
} from '../index';

/** Each refused field with its message. */
const refusals = (dto: ZodDtoClass, plain: object) => {
  const checked = checkArgs(dto.schema, plain);
  return checked.ok ? [] : checked.problems.map((p) => ({ [p.field]: [p.message] }));
};
const refusedFields = (dto: ZodDtoClass, plain: object) => refusals(dto, plain).map((r) => Object.keys(r));

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
    expect(refusedFields(ManualFindingDto, { ...manual, description: 'x'.repeat(20001) })).toEqual([
      ['description'],
    ]);
    expect(refusedFields(ManualFindingDto, { ...manual, location: 'x'.repeat(2001) })).toEqual([
      ['location'],
    ]);
    expect(refusedFields(EditFindingDto, { reason: 'r', impact: null })).toEqual([['impact']]);
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
    expect(checkArgs(AuditQueryDto.schema, { limit: '25' })).toEqual({ ok: true, value: { limit: 25 } });
    for (const limit of ['0', '201', '1.5']) {
      expect(refusedFields(FeedbackQueryDto, { limit })).toEqual([['limit']]);
      expect(refusedFields(AuditQueryDto, { limit })).toEqual([['limit']]);
    }
  });

  it('reads ISO 8601 dates and date-times, and refuses other text', () => {
    for (const from of ['2026-12-01', '2026-12-01T10:00:00Z', '2026-12-01T10:00:00.123+02:00'])
      expect(refusals(FeedbackQueryDto, { from })).toEqual([]);
    for (const from of ['yesterday', '2026-13-01', '01/12/2026'])
      expect(refusals(FeedbackQueryDto, { from })).toEqual([
        { from: ['from must be an ISO 8601 date or date-time'] },
      ]);
  });
});
