/**
 * Timing marks along a turn's path. Production installs no tracer (a mark is a no-op call); the
 * benchmark's writes them to a file (`bench/probes/turn-trace.cjs`).
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
