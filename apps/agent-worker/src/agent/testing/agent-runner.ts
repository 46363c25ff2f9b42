import { Global, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { DataSource } from 'typeorm';
import { AGENT_RUNNER, type AgentRunner } from '@corpus-chat/server-core';
import { agentConfig, type AgentConfig } from '../agent.config';
import { AgentModule } from '../agent.module';

/**
 * The agent runner as the worker wires it: `AgentModule` in a Nest container with `dataSource` as
 * the app's DataSource; by default it re-reads the model settings on every turn.
 */
export async function startAgentRunner(
  dataSource: DataSource,
  config: AgentConfig = agentConfig({ settingsCacheMs: 0 }),
): Promise<AgentRunner> {
  @Global()
  @Module({ providers: [{ provide: DataSource, useValue: dataSource }], exports: [DataSource] })
  class TestDataModule {}
  const ref = await Test.createTestingModule({
    imports: [TestDataModule, AgentModule.forRoot({ config })],
  }).compile();
  return ref.get(AGENT_RUNNER);
}
