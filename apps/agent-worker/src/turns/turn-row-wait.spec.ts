import { waitForRow } from './turn-row-wait';

describe('waitForRow', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  /** A lookup that finds nothing until `committedAt` (fake ms since the start), recording when it looked. */
  const lookup = (committedAt: number) => {
    const start = Date.now();
    const looks: number[] = [];
    const find = async () => {
      looks.push(Date.now() - start);
      return Date.now() - start >= committedAt ? { id: 'turn' } : null;
    };
    return { find, looks };
  };

  it('looks again after 1, 2, 4 … ms, so a row committed 5 ms after the pickup is found at 7 ms, not 50', async () => {
    const { find, looks } = lookup(5);
    const result = waitForRow(find, 3000);
    await jest.advanceTimersByTimeAsync(7);
    await expect(result).resolves.toEqual({ id: 'turn' });
    expect(looks).toEqual([0, 1, 3, 7]);
  });

  it('backs off to 50 ms between looks and gives up with null once the time is out', async () => {
    const { find, looks } = lookup(Infinity);
    const result = waitForRow(find, 300);
    await jest.advanceTimersByTimeAsync(400);
    await expect(result).resolves.toBeNull();
    expect(looks).toEqual([0, 1, 3, 7, 15, 31, 63, 113, 163, 213, 263, 313]);
  });

  it('returns at once, after one look, when the row is already there', async () => {
    const { find, looks } = lookup(0);
    await expect(waitForRow(find, 1000)).resolves.toEqual({ id: 'turn' });
    expect(looks).toEqual([0]);
  });
});
