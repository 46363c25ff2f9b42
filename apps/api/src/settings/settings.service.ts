import { Inject, Injectable, Logger, UnprocessableEntityException } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  sameBaseUrl,
  type SettingsTestResult,
  type SettingsView,
  type TestSettingsDto,
  type UpdateSettingsDto,
} from '@corpus-chat/contracts';
import {
  readModelSettings,
  recordAuditEvent,
  toSettingsView,
  writeModelSettings,
} from '@corpus-chat/persistence';
import { ModelUrlAllowlist } from '@corpus-chat/server-core';
import type { AuthenticatedOperator } from '../auth/current-operator';
import { checkModelServer, type ModelServerCheckOptions } from './model-server-check';
import { SETTINGS_ENV, type SettingsEnv } from './settings.env';

/**
 * Reads, saves and tests the model settings row (`settings`). The stored API key is bound to the
 * base URL it was saved with: it is never sent to, nor kept for, another server.
 */
@Injectable()
export class SettingsService {
  private readonly logger = new Logger(SettingsService.name);
  /** Overridable in tests (short timeouts). */
  checkOptions: ModelServerCheckOptions = {};

  constructor(
    private readonly dataSource: DataSource,
    @Inject(SETTINGS_ENV) private readonly env: SettingsEnv,
  ) {}

  async get(): Promise<SettingsView> {
    return toSettingsView(await readModelSettings(this.dataSource));
  }

  /**
   * Saves settings (workers pick them up next turn). A new `baseUrl` without a new `apiKey` clears
   * the stored key, never sending it elsewhere. 422 for a server outside `MODEL_URL_ALLOWLIST`.
   */
  async update(dto: UpdateSettingsDto, actor: AuthenticatedOperator): Promise<SettingsView> {
    const { saved, keyDropped } = await this.dataSource.transaction(async (tx) => {
      const stored = await readModelSettings(tx);
      const baseUrl = dto.baseUrl ?? stored.baseUrl;
      if ((dto.backend ?? stored.backend) === 'openai' && baseUrl) this.assertAllowed(baseUrl);
      const dropKey =
        dto.apiKey === undefined &&
        dto.baseUrl !== undefined &&
        !!stored.apiKey &&
        !sameBaseUrl(dto.baseUrl, stored.baseUrl);
      const next = await writeModelSettings(tx, {
        backend: dto.backend,
        baseUrl: dto.baseUrl,
        model: dto.model,
        apiKey: dropKey ? null : dto.apiKey,
      });
      // The view, never the key: the audit log says whether a key is set, not which.
      const { updatedAt: _before, ...before } = toSettingsView(stored);
      const { updatedAt: _after, ...after } = toSettingsView(next);
      await recordAuditEvent(tx, {
        action: 'settings.update',
        actor,
        subjectType: 'settings',
        subjectId: null,
        before,
        after,
      });
      return { saved: next, keyDropped: dropKey };
    });
    this.logger.log(
      {
        operatorId: actor.id,
        backend: saved.backend,
        model: saved.model,
        apiKeySet: !!saved.apiKey,
        apiKeyDropped: keyDropped,
      },
      'model settings saved',
    );
    return toSettingsView(saved);
  }

  /**
   * Tests the stored settings or `overrides`; the stored key goes only to the stored base URL. The
   * built-in planner passes one check. 422 for a server outside `MODEL_URL_ALLOWLIST`.
   */
  async test(overrides: TestSettingsDto = {}): Promise<SettingsTestResult> {
    const stored = await readModelSettings(this.dataSource);
    const backend = overrides.backend ?? stored.backend;
    if (backend === 'builtin') {
      return {
        ok: true,
        checks: [
          { name: 'models', ok: true, detail: 'The built-in planner is selected: it needs no model server.' },
        ],
      };
    }
    const baseUrl = overrides.baseUrl ?? stored.baseUrl;
    const model = overrides.model ?? stored.model;
    if (!baseUrl || !model) {
      return {
        ok: false,
        checks: [
          {
            name: 'models',
            ok: false,
            detail: 'Set the base URL and the model of the OpenAI-compatible server first.',
          },
        ],
      };
    }
    this.assertAllowed(baseUrl);
    let apiKey: string | null;
    if (overrides.apiKey !== undefined) apiKey = overrides.apiKey || null;
    else apiKey = sameBaseUrl(baseUrl, stored.baseUrl) ? stored.apiKey : null;
    return checkModelServer(
      { baseUrl, model, apiKey },
      { agentContextTokens: this.env.AGENT_CONTEXT_TOKENS, ...this.checkOptions },
    );
  }

  /** 422 naming `MODEL_URL_ALLOWLIST` for a server outside it (before anything is saved or sent). */
  private assertAllowed(baseUrl: string): void {
    const allowlist = ModelUrlAllowlist.parse(this.env.MODEL_URL_ALLOWLIST);
    if (!allowlist.allows(baseUrl)) throw new UnprocessableEntityException(allowlist.refusal(baseUrl));
  }
}
