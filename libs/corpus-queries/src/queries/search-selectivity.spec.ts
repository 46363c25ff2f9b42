import 'reflect-metadata';
import {
  arrayOverlapSelectivity,
  parseTsQuery,
  tsQuerySelectivity,
  UnsupportedTsQueryError,
  type ElementStats,
} from './search-selectivity';

const stats: ElementStats = {
  nullFrac: 0.5,
  elements: {
    freq: new Map([
      ['cooki', 0.2],
      ['session', 0.1],
      ['79', 0.3],
    ]),
    minFreq: 0.004,
  },
};

describe('parseTsQuery', () => {
  test('reads the text form PostgreSQL prints, with its precedence', () => {
    expect(parseTsQuery(`'directori' <-> 'search' & !'ldap' | 'cooki'`)).toEqual({
      op: 'or',
      left: {
        op: 'and',
        left: {
          op: 'phrase',
          left: { op: 'lexeme', lexeme: 'directori' },
          right: { op: 'lexeme', lexeme: 'search' },
        },
        right: { op: 'not', arg: { op: 'lexeme', lexeme: 'ldap' } },
      },
      right: { op: 'lexeme', lexeme: 'cooki' },
    });
    expect(parseTsQuery(`( 'a' | 'b' ) <2> 'c'`)).toEqual({
      op: 'phrase',
      left: { op: 'or', left: { op: 'lexeme', lexeme: 'a' }, right: { op: 'lexeme', lexeme: 'b' } },
      right: { op: 'lexeme', lexeme: 'c' },
    });
  });
  test('unescapes quotes and backslashes; the empty query is null', () => {
    expect(parseTsQuery(`'o''brien' & 'a\\\\b'`)).toEqual({
      op: 'and',
      left: { op: 'lexeme', lexeme: "o'brien" },
      right: { op: 'lexeme', lexeme: 'a\\b' },
    });
    expect(parseTsQuery('')).toBeNull();
  });
  test('refuses weights, prefixes and malformed text', () => {
    for (const text of [`'a':*`, `'a':AB`, `'a' &`, `('a'`, `'a`])
      expect(() => parseTsQuery(text)).toThrow(UnsupportedTsQueryError);
  });
});

describe('selectivity (PostgreSQL formulas)', () => {
  test('a common lexeme is its frequency among non-NULL rows, scaled by them', () => {
    expect(tsQuerySelectivity(parseTsQuery(`'cooki'`), stats)).toBeCloseTo(0.2 * 0.5);
  });
  test('an unknown lexeme is min(0.005, minfreq / 2); no statistics give 0.005 unscaled', () => {
    expect(tsQuerySelectivity(parseTsQuery(`'ldap'`), stats)).toBeCloseTo(0.002 * 0.5);
    expect(tsQuerySelectivity(parseTsQuery(`'ldap'`), null)).toBeCloseTo(0.005);
    expect(tsQuerySelectivity(parseTsQuery(`'ldap'`), { nullFrac: 0.5 })).toBeCloseTo(0.005 * 0.5);
  });
  test('AND and phrase multiply, OR is s1 + s2 − s1·s2, NOT is 1 − s; empty matches nothing', () => {
    expect(tsQuerySelectivity(parseTsQuery(`'session' <-> 'cooki'`), stats)).toBeCloseTo(0.02 * 0.5);
    expect(tsQuerySelectivity(parseTsQuery(`'session' & 'cooki'`), stats)).toBeCloseTo(0.02 * 0.5);
    expect(tsQuerySelectivity(parseTsQuery(`'session' | 'cooki'`), stats)).toBeCloseTo(0.28 * 0.5);
    expect(tsQuerySelectivity(parseTsQuery(`!'cooki'`), stats)).toBeCloseTo(0.8 * 0.5);
    expect(tsQuerySelectivity(null, stats)).toBe(0);
  });
  test('array overlap combines distinct ids as s + e − s·e', () => {
    expect(arrayOverlapSelectivity([79, 79, 80], stats)).toBeCloseTo((0.3 + 0.002 - 0.3 * 0.002) * 0.5);
    expect(arrayOverlapSelectivity([1], null)).toBeCloseTo(0.005);
  });
});
