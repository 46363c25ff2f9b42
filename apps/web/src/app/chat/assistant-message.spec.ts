import { TestBed, type ComponentFixture } from '@angular/core/testing';
import { provideRouter } from '@angular/router';
import type { AnswerVerification } from '@corpus-chat/contracts';
import { beforeEach, describe, expect, it } from 'vitest';
import { AssistantMessage } from './assistant-message';
import type { TurnPart } from './turn-state';

describe('AssistantMessage', () => {
  let fixture: ComponentFixture<AssistantMessage>;
  const el = (): HTMLElement => fixture.nativeElement as HTMLElement;
  const warning = (): HTMLElement | null => el().querySelector('[data-testid="unverified-warning"]');
  const marks = (): string[] =>
    Array.from(el().querySelectorAll('mark.unverified')).map((m) => m.textContent ?? '');
  const show = async (inputs: {
    parts: TurnPart[];
    verification?: AnswerVerification | null;
    reasoning?: string | null;
    streaming?: boolean;
  }) => {
    fixture.componentRef.setInput('parts', inputs.parts);
    fixture.componentRef.setInput('phase', 'done');
    fixture.componentRef.setInput('verification', inputs.verification ?? null);
    fixture.componentRef.setInput('reasoning', inputs.reasoning ?? null);
    fixture.componentRef.setInput('streaming', inputs.streaming ?? false);
    await fixture.whenStable();
  };

  const card: TurnPart = {
    kind: 'tool',
    call: {
      callId: 'k1',
      name: 'search_findings',
      args: { text: 'SQL injection' },
      state: 'ok',
      summary: '184 findings',
      data: { total: 184, returned: 5 },
    },
  };
  const answer: TurnPart[] = [
    card,
    {
      kind: 'text',
      text: 'The exact total is **84** findings, of **1,204** scanned; 184 are open and 1,840 closed.',
    },
  ];

  beforeEach(() => {
    TestBed.configureTestingModule({ providers: [provideRouter([])] });
    fixture = TestBed.createComponent(AssistantMessage);
  });

  it('names the unsupported numbers in a note and highlights each of them in the prose, not in the tool card', async () => {
    await show({ parts: answer, verification: { checked: 4, unsupported: ['84', '1,204'] } });
    expect(warning()?.getAttribute('role')).toBe('note');
    expect(warning()?.querySelector('.message')?.textContent?.trim()).toBe(
      'Not backed by a tool result: 84, 1,204. Check these against the tool cards.',
    );
    expect(marks()).toEqual(['84', '1,204']);
    expect(el().querySelector('cc-tool-card mark')).toBeNull();
    expect(el().querySelector('[data-testid="answer"]')?.textContent).toContain(
      '184 are open and 1,840 closed.',
    );
  });

  it('says so when no tool was called at all, instead of pointing at tool cards that are not there', async () => {
    await show({
      parts: [{ kind: 'text', text: 'There are about 12345 findings.' }],
      verification: { checked: 1, unsupported: ['12345'] },
    });
    expect(warning()?.querySelector('.message')?.textContent?.trim()).toBe(
      'Not backed by a tool result: 12345. No tool was called for this answer: ask again, or look the figure up under Findings.',
    );
    expect(marks()).toEqual(['12345']);
  });

  it('says when the model was asked again, and announces the warning while the turn is followed live', async () => {
    await show({
      parts: answer,
      verification: { checked: 1, unsupported: ['84'], reasked: true },
      streaming: true,
    });
    expect(warning()?.getAttribute('role')).toBe('status');
    expect(warning()?.textContent).toContain(
      'The model was asked once more and its answer still holds them.',
    );
  });

  it('shows neither warning nor highlight when every number is backed or there is no check', async () => {
    await show({ parts: answer, verification: { checked: 4, unsupported: [] } });
    expect(warning()).toBeNull();
    expect(marks()).toEqual([]);
    await show({ parts: answer, verification: null });
    expect(warning()).toBeNull();
    expect(el().querySelector('[data-testid="answer"] strong')?.textContent).toBe('84');
  });

  it('shows the reasoning as closed plain text above the answer, and nothing when it is blank', async () => {
    await show({ parts: answer, reasoning: 'Tool says 184.\n**not bold** <b>not a tag</b>' });
    const details = el().querySelector<HTMLDetailsElement>('details[data-testid="reasoning"]')!;
    expect(details.open).toBe(false);
    expect(details.querySelector('summary')?.textContent?.trim()).toBe('Reasoning');
    const text = details.querySelector('.reasoning-text')!;
    expect(text.textContent).toBe('Tool says 184.\n**not bold** <b>not a tag</b>');
    expect(text.querySelector('b, strong')).toBeNull();
    expect(
      details.compareDocumentPosition(el().querySelector('[data-testid="answer"]')!) &
        Node.DOCUMENT_POSITION_FOLLOWING,
    ).toBeTruthy();

    await show({ parts: answer, reasoning: '  \n' });
    expect(el().querySelector('[data-testid="reasoning"]')).toBeNull();
    await show({ parts: answer });
    expect(el().querySelector('[data-testid="reasoning"]')).toBeNull();
  });

  describe('what a running turn is doing', () => {
    const running = async (lastEventAt: string | null, progress: unknown = null, parts: TurnPart[] = []) => {
      fixture.componentRef.setInput('parts', parts);
      fixture.componentRef.setInput('phase', 'running');
      fixture.componentRef.setInput('streaming', true);
      fixture.componentRef.setInput('lastEventAt', lastEventAt);
      fixture.componentRef.setInput('progress', progress);
      await fixture.whenStable();
      return el().querySelector('[data-testid="turn-state"]')?.textContent?.replace(/\s+/g, ' ').trim();
    };
    const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

    it('says how long the model has been silent once it is a few seconds', async () => {
      expect(await running(ago(500))).toBe('Thinking');
      expect(await running(ago(7_400))).toBe('Waiting for the model (7 s)');
    });

    it("shows the server's prompt progress and reasoning when it sends them", async () => {
      const prompt = {
        model: 'm',
        phase: 'prompt',
        tokens: 0,
        tokensPerSecond: null,
        prompt: { processed: 1024, total: 4096 },
      };
      expect(await running(ago(8_000), prompt)).toBe('The model is reading the prompt (25 %)');
      const reasoning = { model: 'm', phase: 'reasoning', tokens: 1234, tokensPerSecond: 20 };
      expect(await running(ago(100), reasoning)).toBe('The model is reasoning (1,234 tokens)');
    });
  });
});
