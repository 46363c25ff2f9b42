import { SocketEventLimiter, TokenBucket } from './socket-limits';

/** A clock the test moves by hand (milliseconds). */
const manualClock = () => {
  let now = 0;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
};

describe('TokenBucket', () => {
  it('allows a burst of `capacity`, then refills at `perSecond` up to the capacity', () => {
    const clock = manualClock();
    const bucket = new TokenBucket(2, 4, clock.now);
    expect([1, 2, 3, 4, 5].map(() => bucket.take())).toEqual([true, true, true, true, false]);
    clock.advance(500); // one token back
    expect([bucket.take(), bucket.take()]).toEqual([true, false]);
    clock.advance(60_000); // never more than the capacity
    expect(Array.from({ length: 5 }, () => bucket.take())).toEqual([true, true, true, true, false]);
  });
});

describe('SocketEventLimiter', () => {
  it('passes bursts of twice the rate, refuses the rest, and disconnects after 5 bursts of refusals', () => {
    const clock = manualClock();
    const limiter = new SocketEventLimiter(10, clock.now);
    const verdicts = Array.from({ length: 20 + 100 + 1 }, () => limiter.check());
    expect(verdicts.slice(0, 20).every((v) => v === 'pass')).toBe(true);
    expect(verdicts.slice(20, 120).every((v) => v === 'refuse')).toBe(true);
    expect(verdicts[120]).toBe('disconnect');
  });

  it('never disconnects a client that keeps to the rate after being refused', () => {
    const clock = manualClock();
    const limiter = new SocketEventLimiter(10, clock.now);
    for (let i = 0; i < 25; i++) limiter.check(); // 20 pass, 5 refused
    const verdicts: string[] = [];
    for (let second = 0; second < 60; second++) {
      clock.advance(1000);
      for (let i = 0; i < 10; i++) verdicts.push(limiter.check());
    }
    expect(verdicts.every((v) => v === 'pass')).toBe(true);
  });
});
