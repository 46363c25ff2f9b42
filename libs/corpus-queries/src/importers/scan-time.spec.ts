import { earliestScanTime, scanTime } from './scan-time';

describe('recorded scan times (IMPORT-RULES "a report\'s recorded scan time")', () => {
  test('ctime-like times are read as UTC, a zone word ignored', () => {
    expect(scanTime('Sat Sep 13 22:39:44 CEST 2014')).toBe('2014-09-13T22:39:44.000Z');
    expect(scanTime('Mon Jul  1 11:33:11 2013')).toBe('2013-07-01T11:33:11.000Z');
  });
  test('ISO 8601 with an offset is converted to UTC; without one it is read as UTC', () => {
    expect(scanTime('2021-03-12T12:34:30.12031+00:00')).toBe('2021-03-12T12:34:30.120Z');
    expect(scanTime('2024-05-02T10:00:00+02:00')).toBe('2024-05-02T08:00:00.000Z');
    expect(scanTime('2024-05-02T10:00:00-0530')).toBe('2024-05-02T15:30:00.000Z');
    expect(scanTime('2024-05-02 10:00:00')).toBe('2024-05-02T10:00:00.000Z');
  });
  test('anything else is no time', () => {
    for (const bad of ['', 'yesterday', 'Mon Foo 1 11:33:11 2013', '2024-02-30T10:00:00Z', null, 42])
      expect(scanTime(bad)).toBeNull();
  });
  test('the earliest of several, ignoring unreadable ones', () => {
    expect(earliestScanTime(['Thu May  2 07:30:00 2024', '2024-05-02T09:00:00+02:00', 'n/a', null])).toBe(
      '2024-05-02T07:00:00.000Z',
    );
    expect(earliestScanTime([])).toBeNull();
  });
});
