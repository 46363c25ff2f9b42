import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import type { OperatorLanguage } from '@corpus-chat/contracts';
import {
  type AgentRunner,
  type AgentTurnContext,
  type AgentTurnOutcome,
  AgentTurnError,
  ModelUrlAllowlist,
} from '@corpus-chat/server-core';
import { countTokens } from './context/token-counter';
import type { ModelSettingsProvider } from './model-settings.provider';
import type { OpenAiModelRunner } from './model/openai-model-runner';
import type { PlannerRunner } from './planner/planner-runner';

/** Questions of the common shapes (count, list, breakdown, in both languages) the planner runs at start. */
const WARM_UP_QUESTIONS: [string, OperatorLanguage][] = [
  ['How many findings are there?', 'en'],
  ['List the critical findings about SQL injection', 'en'],
  ['Break down the findings by severity', 'en'],
  ['Сколько всего находок?', 'ru'],
];

/** The worker's `AgentRunner`: per turn, the model back end when `settings` names one, else the planner. */
export class CorpusAgentRunner implements AgentRunner {
  private readonly logger = new Logger(CorpusAgentRunner.name);

  constructor(
    private readonly settings: ModelSettingsProvider,
    private readonly planner: PlannerRunner,
    private readonly model: OpenAiModelRunner,
    /** `MODEL_URL_ALLOWLIST`: the settings row may name a server saved before the list was set. */
    private readonly allowlist: ModelUrlAllowlist = ModelUrlAllowlist.parse(''),
  ) {}

  /**
   * The model back end's bound (the planner reads only the follow-up state of the latest answers,
   * well within it).
   */
  get historyLimit(): number {
    return this.model.historyLimit;
  }

  /**
   * Reads the settings, loads the tokenizer when a model server is selected (seconds and ~50 MiB
   * the planner never needs) and runs the planner and its tool queries on sample questions.
   */
  async warmUp(): Promise<void> {
    if ((await this.settings.get()).backend === 'openai') countTokens(WARM_UP_QUESTIONS[0][0]);
    for (const [userMessage, language] of WARM_UP_QUESTIONS) {
      await this.planner.run({
        chatId: randomUUID(),
        turnId: randomUUID(),
        ownerId: randomUUID(),
        history: [],
        userMessage,
        language,
        signal: new AbortController().signal,
        emit: async () => undefined,
      });
    }
  }

  async run(ctx: AgentTurnContext): Promise<AgentTurnOutcome> {
    const s = await this.settings.get();
    if (s.backend === 'openai' && s.baseUrl && s.model) {
      if (!this.allowlist.allows(s.baseUrl)) {
        this.logger.warn(
          { turnId: ctx.turnId },
          'the configured model server is not in MODEL_URL_ALLOWLIST; turn refused',
        );
        throw new AgentTurnError('MODEL_UNAVAILABLE', this.allowlist.refusal(s.baseUrl), false);
      }
      this.logger.debug(
        { turnId: ctx.turnId, chatId: ctx.chatId, backend: 'openai', model: s.model },
        'running turn',
      );
      return this.model.run(ctx, s);
    }
    if (s.backend === 'openai')
      this.logger.warn(
        { turnId: ctx.turnId },
        'openai back end selected without base URL or model; using the built-in planner',
      );
    return this.planner.run(ctx);
  }
}
