import { BadRequestException } from '@nestjs/common';
import { containsNul, RejectNulPipe } from './http-hardening';

describe('NUL characters at the edge', () => {
  it('finds a NUL anywhere in a JSON-like value, keys included', () => {
    expect(containsNul('a\u0000')).toBe(true);
    expect(containsNul({ a: [{ b: 'x\u0000y' }] })).toBe(true);
    expect(containsNul({ ['k\u0000']: 1 })).toBe(true);
    expect(containsNul({ a: ['\ud800', '\u202E', 'ok', 1, null, true] })).toBe(false);
  });

  it('the pipe refuses body, query and params with NUL (400 naming the field) and passes everything else', () => {
    const pipe = new RejectNulPipe();
    expect(() => pipe.transform({ content: 'a\u0000' }, { type: 'body', data: undefined })).toThrow(
      BadRequestException,
    );
    expect(() => pipe.transform('x\u0000', { type: 'param', data: 'id' })).toThrow(
      'id must not contain NUL characters.',
    );
    expect(() => pipe.transform({ q: '\u0000' }, { type: 'query', data: undefined })).toThrow(
      BadRequestException,
    );
    expect(pipe.transform({ content: 'fine \u202E' }, { type: 'body' })).toEqual({ content: 'fine \u202E' });
    const operator = { id: 'x\u0000' };
    expect(pipe.transform(operator, { type: 'custom' })).toBe(operator);
  });
});
