import { describe, expect, it } from 'vitest';
import { DisplayTextPipe, displayText } from './display-text';

describe('displayText', () => {
  it('removes every bidi control and keeps the rest', () => {
    expect(displayText('invoice\u202Efdp.exe')).toBe('invoicefdp.exe');
    expect(
      displayText('a\u202Ab\u202Bc\u202Cd\u202De\u2066f\u2067g\u2068h\u2069i\u200Ej\u200Fk\u061Cl'),
    ).toBe('abcdefghijkl');
    expect(displayText('SQL injection – “quoted” 日本語 עברית')).toBe(
      'SQL injection – “quoted” 日本語 עברית',
    );
  });
  it('gives an empty string for null and undefined', () => {
    expect(displayText(null)).toBe('');
    expect(displayText(undefined)).toBe('');
  });
  it('is what the pipe shows', () => {
    expect(new DisplayTextPipe().transform('x\u202Ey')).toBe('xy');
  });
});
