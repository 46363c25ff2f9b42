/**
 * A worker warms up before it takes a job (`TurnWarmup`), and the warm-up writes nothing (real Postgres,
 * Redis, BullMQ).
 */
import { ScriptedAgentRunner } from './support/scripted-runner';
import { TurnTestBed } from './support/turn-test-bed';
import { type RunningWorker, startWorker } from './support/worker-harness';

jest.setTimeout(40_000);

let bed: TurnTestBed;
let worker: RunningWorker | undefined;
beforeAll(async () => {
  bed = await TurnTestBed.create();
});
afterAll(async () => {
  await worker?.close();
  await bed.close();
});

it('runs a job waiting at its start only after its warm-up, which stores no turn, message or thread', async () => {
  const thread = await bed.newChat();
  const { turnId } = await bed.enqueue(thread, 'How many findings are there?');
  const counts = () =>
    bed.db.dataSource.query(
      `SELECT (SELECT count(*) FROM chat_turns)::int AS turns, (SELECT count(*) FROM chat_messages)::int AS messages,
              (SELECT count(*) FROM chat_sessions)::int AS threads`,
    );
  const [before] = await counts();
  const order: string[] = [];
  const runner = new ScriptedAgentRunner();
  const run = runner.run.bind(runner);
  runner.run = (ctx) => (order.push(`run ${ctx.turnId}`), run(ctx));
  Object.assign(runner, {
    warmUp: async () => order.push(`warm-up, job ${await bed.queue.getJobState(turnId)}`),
  });
  worker = await startWorker({ databaseUrl: bed.databaseUrl, redisPrefix: bed.prefix, runner });
  await bed.waitForEvent(turnId, 'turn.done');
  expect(order).toEqual(['warm-up, job waiting', `run ${turnId}`]);
  const [after] = await counts();
  expect(after).toEqual({ ...before, messages: before.messages + 1 }); // the answer only
});
