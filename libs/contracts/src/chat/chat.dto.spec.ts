import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { PostMessageDto, SearchFindingsQueryDto, UpdateSettingsDto } from '../index';

const errorsOf = <T extends object>(cls: new () => T, plain: object) =>
  validateSync(plainToInstance(cls, plain) as object).map((e) => e.property);

describe('contracts DTO validation', () => {
  it('rejects an empty or blank message and a malformed clientMessageId', () => {
    expect(errorsOf(PostMessageDto, { content: '' })).toEqual(['content']);
    expect(errorsOf(PostMessageDto, { content: ' \t\n\u00a0\u3000' })).toEqual(['content']);
    expect(errorsOf(PostMessageDto, { content: '  ?  ' })).toEqual([]);
    expect(errorsOf(PostMessageDto, { content: 'hi', clientMessageId: 'not-a-uuid' })).toEqual(['clientMessageId']);
    expect(errorsOf(PostMessageDto, { content: 'hi', clientMessageId: '3f1c2a6e-8d4b-4c1e-9a7f-2b5d6e8f9a01' })).toEqual([]);
  });

  it('converts query-string numbers and rejects an unknown severity', () => {
    const q = plainToInstance(SearchFindingsQueryDto, { reportId: '7', limit: '20' });
    expect(q.reportId).toBe(7);
    expect(validateSync(q)).toHaveLength(0);
    expect(errorsOf(SearchFindingsQueryDto, { severity: 'severe' })).toEqual(['severity']);
    expect(errorsOf(SearchFindingsQueryDto, { limit: '51' })).toEqual(['limit']);
  });

  it('requires an http(s) base URL for an OpenAI-compatible back end only', () => {
    expect(errorsOf(UpdateSettingsDto, { backend: 'builtin' })).toEqual([]);
    expect(errorsOf(UpdateSettingsDto, { backend: 'openai', baseUrl: 'ftp://x', model: 'm' })).toEqual(['baseUrl']);
    expect(errorsOf(UpdateSettingsDto, { backend: 'openai', baseUrl: 'http://localhost:11434/v1', model: 'qwen' })).toEqual([]);
  });
});
