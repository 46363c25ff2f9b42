import {
  CorpusTools,
  CORPUS_QUERY_FNS,
  CorpusUnavailableError,
  type CorpusQueryFns,
  defaultCorpusQueries,
  defaultReadOnly,
} from '@corpus-chat/corpus-queries';
import { Module, type DynamicModule, type Provider } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  AGENT_RUNNER,
  isDatabaseUnavailable,
  ModelSlots,
  REDIS_CLIENT,
  type RedisClient,
  RedisKeys,
} from '@corpus-chat/server-core';
import { AGENT_CONFIG, loadAgentConfig, type AgentConfig } from './agent.config';
import { CorpusAgentRunner } from './corpus-agent-runner';
import { ModelSettingsProvider } from './model-settings.provider';
import { OpenAiModelRunner } from './model/openai-model-runner';
import { PlannerRunner } from './planner/planner-runner';

export interface AgentModuleOptions {
  /** Agent configuration; default: validated from `process.env` (`AgentEnv`). */
  config?: AgentConfig;
  /** Query functions; default: those of `@corpus-chat/corpus-queries`. */
  queries?: CorpusQueryFns;
}

/**
 * Provides `AGENT_RUNNER` (a `CorpusAgentRunner`); needs the app's TypeORM `DataSource`. Tests
 * pass `config`/`queries` to `forRoot` to override the environment and the real queries.
 */
@Module({})
export class AgentModule {
  static forRoot(options: AgentModuleOptions = {}): DynamicModule {
    const providers: Provider[] = [
      { provide: AGENT_CONFIG, useFactory: () => options.config ?? loadAgentConfig() },
      { provide: CORPUS_QUERY_FNS, useValue: options.queries ?? defaultCorpusQueries },
      {
        provide: CorpusTools,
        inject: [DataSource, CORPUS_QUERY_FNS],
        // Postgres out of reach is told apart from a failed query (TurnRecorder retries it).
        useFactory: (ds: DataSource, q: CorpusQueryFns) =>
          new CorpusTools(ds, q, (source, fn, signal) =>
            defaultReadOnly(source, fn, signal).catch((e: unknown) => {
              throw isDatabaseUnavailable(e) ? new CorpusUnavailableError(e) : e;
            }),
          ),
      },
      {
        provide: ModelSettingsProvider,
        inject: [DataSource, AGENT_CONFIG],
        useFactory: (ds: DataSource, c: AgentConfig) => new ModelSettingsProvider(ds, c.settingsCacheMs),
      },
      {
        provide: PlannerRunner,
        inject: [CorpusTools],
        useFactory: (t: CorpusTools) => new PlannerRunner(t),
      },
      {
        // Without the turn pipeline's Redis (a runner started alone in a test) requests are not capped.
        provide: ModelSlots,
        inject: [AGENT_CONFIG, { token: REDIS_CLIENT, optional: true }, { token: RedisKeys, optional: true }],
        useFactory: (c: AgentConfig, redis?: RedisClient, keys?: RedisKeys) =>
          redis && keys ? new ModelSlots(redis, keys.prefix, { max: c.maxConcurrentPerServer }) : undefined,
      },
      {
        provide: OpenAiModelRunner,
        inject: [CorpusTools, AGENT_CONFIG, ModelSlots],
        useFactory: (t: CorpusTools, c: AgentConfig, slots?: ModelSlots) =>
          new OpenAiModelRunner(t, c, undefined, slots),
      },
      {
        provide: AGENT_RUNNER,
        inject: [ModelSettingsProvider, PlannerRunner, OpenAiModelRunner, AGENT_CONFIG],
        useFactory: (s: ModelSettingsProvider, p: PlannerRunner, m: OpenAiModelRunner, c: AgentConfig) =>
          new CorpusAgentRunner(s, p, m, c.modelUrlAllowlist),
      },
    ];
    return {
      module: AgentModule,
      providers,
      exports: [AGENT_RUNNER, AGENT_CONFIG, ModelSettingsProvider, CorpusTools],
    };
  }
}
