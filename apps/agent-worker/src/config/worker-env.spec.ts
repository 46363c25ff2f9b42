import { agentEnvSchema } from '../agent/agent.config';
import { workerEnvSchema } from './worker-env';

describe('the agent-worker environment schemas', () => {
  it('describe every variable', () => {
    for (const schema of [workerEnvSchema, agentEnvSchema])
      for (const [name, variable] of Object.entries(schema.shape))
        expect({ name, described: (variable.description ?? '').length > 10 }).toEqual({
          name,
          described: true,
        });
  });
});

describe('WORKER_QUEUES', () => {
  const queues = (value?: string) => workerEnvSchema.shape.WORKER_QUEUES.safeParse(value);
  it('defaults to every queue and reads a comma-separated list', () => {
    expect(queues(undefined).data).toEqual(['turns', 'imports', 'webhooks']);
    expect(queues('imports').data).toEqual(['imports']);
    expect(queues(' turns , turns ').data).toEqual(['turns']);
  });
  it('refuses an unknown queue or an empty list, saying what it takes', () => {
    expect(queues('turns,pdf').error?.issues[0].message).toContain('some of `turns`, `imports`, `webhooks`');
    expect(queues(',').error?.issues[0].message).toContain('some of `turns`, `imports`, `webhooks`');
  });
});
