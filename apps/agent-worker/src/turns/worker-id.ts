/** Nest token of this worker's id (shown in `turn.started` and logs). */
export const WORKER_ID = Symbol('WORKER_ID');
