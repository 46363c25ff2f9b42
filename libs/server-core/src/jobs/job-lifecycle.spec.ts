import type { JobState } from 'bullmq';
import { isLiveJob, jobWorkerOptions, recoverJob } from './job-lifecycle';

describe('recoverJob', () => {
  function run(state: JobState | 'unknown', row: { queued: boolean; workerAlive?: boolean }, ends = true) {
    const calls: string[] = [];
    return recoverJob(state, row, {
      requeue: async () => void calls.push('requeue'),
      end: async () => (calls.push('end'), ends),
    }).then((recovery) => ({ recovery, calls }));
  }

  it.each(['waiting', 'delayed', 'active', 'prioritized', 'waiting-children'] as const)(
    'leaves a row whose job is %s alone',
    async (state) => {
      expect(await run(state, { queued: true })).toEqual({ recovery: 'alive', calls: [] });
    },
  );

  it('adds the job again for a queued row whose job never reached Redis', async () => {
    expect(await run('unknown', { queued: true })).toEqual({ recovery: 'requeued', calls: ['requeue'] });
  });

  it.each(['completed', 'failed'] as const)('ends a queued row whose job is %s', async (state) => {
    expect(await run(state, { queued: true })).toEqual({ recovery: 'ended', calls: ['end'] });
  });

  it('ends a running row whose job is gone, unless its worker still writes its heartbeat', async () => {
    expect(await run('unknown', { queued: false })).toEqual({ recovery: 'ended', calls: ['end'] });
    expect(await run('unknown', { queued: false, workerAlive: true })).toEqual({
      recovery: 'alive',
      calls: [],
    });
  });

  it('reports alive when the row ended meanwhile', async () => {
    expect(await run('failed', { queued: false }, false)).toEqual({ recovery: 'alive', calls: ['end'] });
  });
});

describe('job settings', () => {
  it('counts only waiting, delayed and running jobs as live', () => {
    expect(['active', 'waiting', 'delayed'].every((s) => isLiveJob(s as JobState))).toBe(true);
    expect(['completed', 'failed', 'unknown'].some((s) => isLiveJob(s as JobState))).toBe(false);
  });

  it('lets a turn survive one dead worker and an import none', () => {
    const env = { LOCK_DURATION_MS: 30_000, STALLED_INTERVAL_MS: 15_000 };
    expect(jobWorkerOptions('turn', env)).toEqual({
      lockDuration: 30_000,
      stalledInterval: 15_000,
      maxStalledCount: 1,
    });
    expect(jobWorkerOptions('import', env).maxStalledCount).toBe(0);
  });
});
