/**
 * Timing marks along a turn's path: API store and enqueue, worker pickup and stages, every event
 * publish, the relay to sockets. Production installs no tracer, so a mark costs one call that does
 * nothing. The benchmark harness installs one that appends the marks to a file
 * (`bench/probes/turn-trace.cjs`); an OpenTelemetry tracer could record each as an event on the
 * turn's span.
 */
export interface TurnTracer {
  /** Turn `turnId` reached `point` now. */
  mark(turnId: string, point: string): void;
}

let installed: TurnTracer | null = null;

/** Installs this process's tracer (null: none), before the app starts. */
export function setTurnTracer(tracer: TurnTracer | null): void {
  installed = tracer;
}

/** The marks of this process, forwarded to the installed tracer if there is one. */
export const turnTrace: TurnTracer = {
  mark(turnId, point) {
    installed?.mark(turnId, point);
  },
};
