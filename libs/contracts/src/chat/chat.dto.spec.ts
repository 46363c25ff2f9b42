import { checkArgs, PostMessageDto, UpdateSettingsDto, type ZodDtoClass } from '../index';

const errorsOf = (dto: ZodDtoClass, plain: object) => {
  const checked = checkArgs(dto.schema, plain);
  return checked.ok ? [] : checked.problems.map((p) => p.field);
};

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
    expect(errorsOf(PostMessageDto, { content: 'hi', clientMessageId: null })).toEqual([]);
  });

  it('requires an http(s) base URL and a model for an OpenAI-compatible back end only', () => {
    expect(errorsOf(UpdateSettingsDto, { backend: 'builtin' })).toEqual([]);
    expect(errorsOf(UpdateSettingsDto, { backend: 'openai', baseUrl: 'ftp://x', model: 'm' })).toEqual([
      'baseUrl',
    ]);
    expect(errorsOf(UpdateSettingsDto, { backend: 'openai' })).toEqual(['baseUrl', 'model']);
    expect(
      errorsOf(UpdateSettingsDto, { backend: 'openai', baseUrl: 'http://localhost:11434/v1', model: 'qwen' }),
    ).toEqual([]);
  });
});
