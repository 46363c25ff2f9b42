import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { SettingsTestResult, SettingsView, TestSettingsDto, UpdateSettingsDto } from '@corpus-chat/contracts';
import { readModelSettings, toSettingsView, writeModelSettings } from '@corpus-chat/corpus-queries';
import { checkModelServer, type ModelServerCheckOptions } from './model-server-check';

/** Reads, saves and tests the model settings row (`settings`). */
@Injectable()
export class SettingsService {
  private readonly logger = new Logger(SettingsService.name);
  /** Overridable in tests (short timeouts). */
  checkOptions: ModelServerCheckOptions = {};

  constructor(private readonly dataSource: DataSource) {}

  async get(): Promise<SettingsView> {
    return toSettingsView(await readModelSettings(this.dataSource));
  }

  /** Saves validated settings; the agent-worker picks them up for its next turns (no restart). */
  async update(dto: UpdateSettingsDto, actorId: string): Promise<SettingsView> {
    const saved = await writeModelSettings(this.dataSource, {
      backend: dto.backend,
      baseUrl: dto.baseUrl,
      model: dto.model,
      apiKey: dto.apiKey,
    });
    this.logger.log({ operatorId: actorId, backend: saved.backend, model: saved.model, apiKeySet: !!saved.apiKey }, 'model settings saved');
    return toSettingsView(saved);
  }

  /**
   * Tests the stored settings, or `overrides` on top of them (to try values before saving).
   * The built-in planner needs no server: that is reported as one passing check.
   */
  async test(overrides: TestSettingsDto = {}): Promise<SettingsTestResult> {
    const stored = await readModelSettings(this.dataSource);
    const backend = overrides.backend ?? stored.backend;
    if (backend === 'builtin') {
      return { ok: true, checks: [{ name: 'models', ok: true, detail: 'The built-in planner is selected: it needs no model server.' }] };
    }
    const baseUrl = overrides.baseUrl ?? stored.baseUrl;
    const model = overrides.model ?? stored.model;
    if (!baseUrl || !model) {
      return { ok: false, checks: [{ name: 'models', ok: false, detail: 'Set the base URL and the model of the OpenAI-compatible server first.' }] };
    }
    const apiKey = overrides.apiKey !== undefined ? overrides.apiKey : stored.apiKey;
    return checkModelServer({ baseUrl, model, apiKey }, this.checkOptions);
  }
}
