import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { PostMessageDto, UpdateSettingsDto } from '../index';

const errorsOf = <T extends object>(cls: new () => T, plain: object) =>
  validateSync(plainToInstance(cls, plain) as object).map((e) => e.property);

describe('contracts DTO validation', () => {
  it('rejects an empty or blank message and a malformed clientMessageId', () => {
    expect(errorsOf(PostMessageDto, { content: '' })).toEqual(['content']);
    expect(errorsOf(PostMessageDto, { content: ' \t\n\u00a0\u3000' })).toEqual(['content']);
    expect(errorsOf(PostMessageDto, { content: '  ?  ' })).toEqual([]);
    expect(errorsOf(PostMessageDto, { content: 'hi', clientMessageId: 'not-a-uuid' })).toEqual([
      'clientMessageId',
    ]);
    expect(
      errorsOf(PostMessageDto, { content: 'hi', clientMessageId: '3f1c2a6e-8d4b-4c1e-9a7f-2b5d6e8f9a01' }),
    ).toEqual([]);
  });

  it('requires an http(s) base URL for an OpenAI-compatible back end only', () => {
    expect(errorsOf(UpdateSettingsDto, { backend: 'builtin' })).toEqual([]);
    expect(errorsOf(UpdateSettingsDto, { backend: 'openai', baseUrl: 'ftp://x', model: 'm' })).toEqual([
      'baseUrl',
    ]);
    expect(
      errorsOf(UpdateSettingsDto, { backend: 'openai', baseUrl: 'http://localhost:11434/v1', model: 'qwen' }),
    ).toEqual([]);
  });
});
