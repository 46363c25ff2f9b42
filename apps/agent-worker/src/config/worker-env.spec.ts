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
