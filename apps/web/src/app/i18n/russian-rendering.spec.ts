import { LOCALE_ID } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import { clearTranslations } from '@angular/localize';
import { provideRouter } from '@angular/router';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolCard } from '../chat/tool-card';
import type { ToolCallView } from '../chat/turn-state';
import { loadLanguage } from './language';

// Renders with the Russian translations and locale loaded the way main.ts loads them. A template's
// messages are fixed when its component first renders, so no other spec of this file renders ToolCard.
describe('ToolCard in Russian', () => {
  beforeAll(() => loadLanguage('ru'));
  afterAll(() => {
    clearTranslations();
    $localize.locale = undefined;
  });

  const countCall = (total: number): ToolCallView => ({
    callId: 'k1',
    name: 'count_findings_by',
    args: { groupBy: 'severity' },
    state: 'ok',
    summary: null,
    data: {
      total,
      groupBy: 'severity',
      filter: {},
      groups: [
        { key: 'critical', label: 'critical', count: total - 2 },
        { key: 'low', label: 'low', count: 2 },
      ],
    },
  });

  async function render(call: ToolCallView): Promise<HTMLElement> {
    TestBed.configureTestingModule({ providers: [provideRouter([]), { provide: LOCALE_ID, useValue: 'ru' }] });
    const fixture = TestBed.createComponent(ToolCard);
    fixture.componentRef.setInput('call', call);
    await fixture.whenStable();
    return fixture.nativeElement as HTMLElement;
  }

  it('labels the card, its link and its groups in Russian and uses the Russian plural and digit grouping', async () => {
    const el = await render(countCall(1204));
    expect(el.querySelector('.name')?.textContent).toBe('Подсчёт находок');
    expect(el.querySelector('a.open')?.textContent?.trim()).toBe('Открыть в находках');
    // 1204 → "few" in Russian (1 204 находки); the group separator is a no-break space.
    expect(el.querySelector('[data-testid="tool-total"]')?.textContent?.trim()).toBe('1\u00a0204 находки');
    const groups = Array.from(el.querySelectorAll('[data-testid="tool-group"] th')).map((th) => th.textContent?.trim());
    expect(groups).toEqual(['критическая', 'низкая']);
  });

  it('picks "one" and "many" where Russian needs them', async () => {
    expect((await render(countCall(21))).querySelector('[data-testid="tool-total"]')?.textContent?.trim()).toBe('21 находка');
    TestBed.resetTestingModule();
    expect((await render(countCall(11))).querySelector('[data-testid="tool-total"]')?.textContent?.trim()).toBe('11 находок');
  });
});
