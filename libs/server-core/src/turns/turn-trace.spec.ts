import { setTurnTracer, turnTrace } from './turn-trace';

describe('turnTrace', () => {
  afterEach(() => setTurnTracer(null));

  it('forwards marks to the installed tracer, and drops them when none is installed', () => {
    const marks: [string, string][] = [];
    turnTrace.mark('turn-a', 'api.enqueue');
    setTurnTracer({ mark: (turnId, point) => marks.push([turnId, point]) });
    turnTrace.mark('turn-a', 'worker.picked');
    turnTrace.mark('turn-b', 'publish:turn.started');
    setTurnTracer(null);
    turnTrace.mark('turn-b', 'worker.finished');
    expect(marks).toEqual([
      ['turn-a', 'worker.picked'],
      ['turn-b', 'publish:turn.started'],
    ]);
  });
});
