import { TestBed, type ComponentFixture } from '@angular/core/testing';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { SettingsTestResult, SettingsView } from '@corpus-chat/contracts';
import { SettingsApi } from './settings-api';
import { SettingsPage } from './settings-page';

describe('SettingsPage Test connection', () => {
  let fixture: ComponentFixture<SettingsPage>;
  let api: {
    get: ReturnType<typeof vi.fn>;
    update: ReturnType<typeof vi.fn>;
    test: ReturnType<typeof vi.fn>;
  };
  const el = (): HTMLElement => fixture.nativeElement as HTMLElement;
  /** Bound for the mocked API's answers to reach the page. */
  const WAIT = { timeout: 2000 };
  /** The stored settings arrived: the form replaced the loading line. */
  const formLoaded = () => vi.waitFor(() => expect(el().querySelector('form')).not.toBeNull(), WAIT);
  const testButton = (): HTMLButtonElement | undefined =>
    Array.from(el().querySelectorAll('button')).find((b) => b.textContent!.includes('Test connection'));
  const choose = async (value: 'builtin' | 'openai'): Promise<void> => {
    el().querySelector<HTMLInputElement>(`input[type="radio"][value="${value}"]`)!.click();
    await fixture.whenStable();
  };

  beforeEach(async () => {
    const saved: SettingsView = {
      backend: 'builtin',
      baseUrl: null,
      model: null,
      apiKeySet: false,
      updatedAt: null,
    };
    const failed: SettingsTestResult = {
      ok: false,
      checks: [
        {
          name: 'models',
          ok: false,
          detail:
            'Listing the models failed: could not connect to http://127.0.0.1:9/v1: port 9 is blocked for HTTP requests',
        },
        {
          name: 'completion',
          ok: false,
          detail: "A one-token completion with 'm' failed: could not connect to http://127.0.0.1:9/v1: …",
        },
      ],
    };
    api = {
      get: vi.fn(() => Promise.resolve(saved)),
      update: vi.fn(),
      test: vi.fn(() => Promise.resolve(failed)),
    };
    TestBed.configureTestingModule({ providers: [{ provide: SettingsApi, useValue: api }] });
    fixture = TestBed.createComponent(SettingsPage);
    await formLoaded();
  });

  it('offers no Test connection for the built-in planner, and says why', () => {
    expect(testButton()).toBeUndefined();
    expect(el().querySelector('[data-testid="builtin-note"]')?.textContent).toContain(
      'there is no server to test',
    );
  });

  it('tests a server with the values in the form, lists each check, and forgets the result on switching back', async () => {
    await choose('openai');
    expect(el().querySelector('[data-testid="builtin-note"]')).toBeNull();
    const url = el().querySelector<HTMLInputElement>('#s-base-url')!;
    url.value = 'http://127.0.0.1:9/v1';
    url.dispatchEvent(new Event('input'));
    const model = el().querySelector<HTMLInputElement>('#s-model')!;
    model.value = 'm';
    model.dispatchEvent(new Event('input'));
    testButton()!.click();
    await vi.waitFor(
      () => expect(el().querySelector('.test h2')?.textContent).toBe('Connection problem'),
      WAIT,
    );
    expect(api.test).toHaveBeenCalledWith({
      backend: 'openai',
      baseUrl: 'http://127.0.0.1:9/v1',
      model: 'm',
    });
    const items = Array.from(el().querySelectorAll('.test li')).map((li) =>
      li.textContent!.replace(/\s+/g, ' ').trim(),
    );
    expect(items[0]).toContain('Model list');
    expect(items[0]).toContain('could not connect to http://127.0.0.1:9/v1');
    expect(items[1]).toContain('One-token completion');

    await choose('builtin');
    expect(el().querySelector('.test')).toBeNull();
    await choose('openai');
    expect(el().querySelector('.test')).toBeNull();
  });

  const type = async (selector: string, value: string): Promise<void> => {
    const input = el().querySelector<HTMLInputElement>(selector)!;
    input.value = value;
    input.dispatchEvent(new Event('input'));
    await fixture.whenStable();
  };
  const saveButton = (): HTMLButtonElement => el().querySelector<HTMLButtonElement>('button[type="submit"]')!;
  const checkItems = (): Record<string, string> =>
    Object.fromEntries(
      Array.from(el().querySelectorAll<HTMLElement>('.test li')).map((li) => [
        li.dataset['check'],
        Array.from(li.children, (c) => c.textContent!.trim()).join(' '),
      ]),
    );

  it('shows every check, the tools and context ones included, and the context budget per turn', async () => {
    api.test.mockResolvedValue({
      ok: false,
      contextTokens: 4096,
      contextBudgetTokens: 4096,
      parallelSlots: 4,
      checks: [
        { name: 'models', ok: true, detail: "The server lists 2 model(s), including 'gemma3:1b'." },
        { name: 'completion', ok: true, detail: "The model 'gemma3:1b' answered." },
        {
          name: 'tools',
          ok: false,
          detail: "A request with the agent's tools was refused: 400 gemma3:1b does not support tools.",
        },
        {
          name: 'context',
          ok: true,
          detail: "Ollama runs 'gemma3:1b' with a context of 4,096 tokens (the loaded model, /api/ps).",
        },
      ],
    } satisfies SettingsTestResult);
    await choose('openai');
    await type('#s-base-url', 'http://127.0.0.1:11434/v1');
    await type('#s-model', 'gemma3:1b');
    testButton()!.click();
    await vi.waitFor(() => expect(el().querySelectorAll('.test li').length).toBe(4), WAIT);
    const items = checkItems();
    expect(items['tools']).toMatch(
      /^✕ Tool calls failed A request with the agent's tools was refused: 400 gemma3:1b does not support tools\.$/,
    );
    expect(items['context']).toMatch(
      /^✓ Context length passed Ollama runs 'gemma3:1b' with a context of 4,096 tokens/,
    );
    expect(
      el().querySelector('[data-testid="context-budget"]')!.textContent!.replace(/\s+/g, ' ').trim(),
    ).toBe(
      "Context budget per turn: 4,096 tokens (the smaller of the server's 4,096 and AGENT_CONTEXT_TOKENS)",
    );
    expect(
      el().querySelector('[data-testid="parallel-slots"]')!.textContent!.replace(/\s+/g, ' ').trim(),
    ).toBe('Parallel slots at the server: 4 (set MODEL_MAX_CONCURRENT to at most this)');
  });

  it('marks an unknown context length as unknown, not failed, with AGENT_CONTEXT_TOKENS as the budget', async () => {
    api.test.mockResolvedValue({
      ok: true,
      contextBudgetTokens: 6000,
      checks: [
        {
          name: 'context',
          ok: true,
          detail: 'Context length unknown: the budget is AGENT_CONTEXT_TOKENS, 6,000 tokens.',
        },
      ],
    } satisfies SettingsTestResult);
    await choose('openai');
    await type('#s-base-url', 'http://gpu.lan:8000/v1');
    await type('#s-model', 'm');
    testButton()!.click();
    await vi.waitFor(() => expect(el().querySelector('[data-testid="context-budget"]')).not.toBeNull(), WAIT);
    expect(checkItems()['context']).toMatch(
      /^\? Context length unknown Context length unknown: the budget is AGENT_CONTEXT_TOKENS/,
    );
    expect(el().querySelector('[data-testid="context-budget"]')!.textContent).toContain('6,000 tokens');
    expect(el().querySelector('[data-testid="context-budget"]')!.textContent).toContain(
      'the server did not say its context length',
    );
    expect(el().querySelector('[data-testid="parallel-slots"]')!.textContent).toContain(
      'Parallel slots: not told by this server',
    );
  });

  it('drops the "needs a base URL and a model name" error once a field is edited, and after a successful save', async () => {
    api.update.mockImplementation((body) =>
      Promise.resolve({ ...body, apiKeySet: false, updatedAt: '2026-12-01T19:00:00.000Z' }),
    );
    await choose('openai');
    saveButton().click();
    await vi.waitFor(
      () => expect(el().querySelector('.error')?.textContent).toContain('needs a base URL and a model name'),
      WAIT,
    );
    expect(api.update).not.toHaveBeenCalled();

    // Stale as soon as a field is edited: it no longer describes the form.
    await type('#s-base-url', 'http://127.0.0.1:11434/v1');
    expect(el().querySelector('.error')).toBeNull();
    saveButton().click();
    await vi.waitFor(
      () => expect(el().querySelector('.error')?.textContent).toContain('needs a base URL and a model name'),
      WAIT,
    );
    await type('#s-model', 'qwen3:8b');
    saveButton().click();
    await vi.waitFor(() => expect(el().querySelector('.saved')?.textContent).toContain('Saved.'), WAIT);
    expect(api.update).toHaveBeenCalledWith({
      backend: 'openai',
      baseUrl: 'http://127.0.0.1:11434/v1',
      model: 'qwen3:8b',
    });
    expect(el().textContent).not.toContain('needs a base URL and a model name');
  });

  it('drops a failed Test connection result ("set the base URL and the model first") once a field is edited or the settings saved', async () => {
    api.update.mockImplementation((body) =>
      Promise.resolve({ ...body, apiKeySet: false, updatedAt: '2026-12-01T19:00:00.000Z' }),
    );
    api.test.mockResolvedValue({
      ok: false,
      checks: [
        {
          name: 'models',
          ok: false,
          detail: 'Set the base URL and the model of the OpenAI-compatible server first.',
        },
      ],
    });
    await choose('openai');
    testButton()!.click();
    await vi.waitFor(
      () => expect(el().querySelector('.test h2')?.textContent).toBe('Connection problem'),
      WAIT,
    );
    await type('#s-base-url', 'http://127.0.0.1:11434/v1');
    expect(el().querySelector('.test')).toBeNull();

    await type('#s-model', 'qwen3:8b');
    testButton()!.click();
    await vi.waitFor(() => expect(el().textContent).toContain('Set the base URL and the model'), WAIT);
    // Saved without an edit since the test: the failure no longer describes the stored settings.
    saveButton().click();
    await vi.waitFor(() => expect(el().querySelector('.saved')?.textContent).toContain('Saved.'), WAIT);
    expect(el().textContent).not.toContain('Set the base URL and the model');
    expect(el().querySelector('.test')).toBeNull();
  });

  it('warns that the stored key stays with its server when another base URL is typed, and says when a save removed it', async () => {
    const saved: SettingsView = {
      backend: 'openai',
      baseUrl: 'http://127.0.0.1:11434/v1',
      model: 'qwen3:8b',
      apiKeySet: true,
      updatedAt: null,
    };
    api.get.mockResolvedValue(saved);
    api.update.mockImplementation((body) => Promise.resolve({ ...saved, ...body, apiKeySet: false }));
    fixture = TestBed.createComponent(SettingsPage);
    await formLoaded();
    const warning = () => el().querySelector('[data-testid="key-stays-behind"]');
    expect(warning()).toBeNull();
    await type('#s-base-url', 'HTTP://127.0.0.1:11434/v1/');
    expect(warning()).toBeNull();
    await type('#s-base-url', 'http://gpu.lan:8000/v1');
    expect(warning()?.textContent).toContain('The stored key belongs to http://127.0.0.1:11434/v1');
    await type('#s-api-key', 'sk-gpu');
    expect(warning()).toBeNull();
    await type('#s-api-key', '');
    saveButton().click();
    await vi.waitFor(
      () =>
        expect(el().querySelector('.saved')?.textContent).toContain(
          'The stored API key was removed: it belonged to the previous server.',
        ),
      WAIT,
    );
  });
});
