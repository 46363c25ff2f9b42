import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseTurnTrace, TurnTrace } from './turn-trace';

describe('TurnTrace', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-trace-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('writes nothing when no file is configured', () => {
    const trace = new TurnTrace('');
    trace.mark('t1', 'api.enqueue');
    trace.flush();
    expect(trace.enabled).toBe(false);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('appends one JSON line per mark, with this process id and a monotonic microsecond clock', async () => {
    const file = path.join(dir, 'trace.jsonl');
    const trace = new TurnTrace(file);
    const before = Number(process.hrtime.bigint() / 1000n);
    trace.mark('turn-a', 'worker.picked');
    trace.mark('turn-a', 'publish:turn.started');
    trace.mark('turn-b', 'worker.picked');
    trace.flush();
    await new Promise<void>((resolve) => {
      const check = () =>
        fs.existsSync(file) && fs.readFileSync(file, 'utf8').split('\n').length > 3
          ? resolve()
          : setTimeout(check, 10);
      check();
    });
    const marks = parseTurnTrace(fs.readFileSync(file, 'utf8') + '{"torn');
    expect(marks.map((m) => [m.turn, m.mark, m.pid])).toEqual([
      ['turn-a', 'worker.picked', process.pid],
      ['turn-a', 'publish:turn.started', process.pid],
      ['turn-b', 'worker.picked', process.pid],
    ]);
    expect(marks[0].t).toBeGreaterThanOrEqual(before);
    expect(marks[1].t).toBeGreaterThanOrEqual(marks[0].t);
  });
});
