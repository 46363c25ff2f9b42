import { documentedFor, schemaVariables } from '@corpus-chat/ingest/testing';
import { agentEnvSchema } from '../agent/agent.config';
import { workerEnvSchema } from './worker-env';

describe('docs/configuration.md', () => {
  it('lists for the worker exactly the variables of its env schemas', () => {
    expect(documentedFor('worker')).toEqual(schemaVariables(workerEnvSchema, agentEnvSchema));
  });
});
