import { TestBed } from '@angular/core/testing';
import { provideRouter } from '@angular/router';
import { RouterTestingHarness } from '@angular/router/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import { ChatEmpty } from './chat-empty';

describe('ChatEmpty', () => {
  beforeEach(() => {
    TestBed.resetTestingModule();
    TestBed.configureTestingModule({ providers: [provideRouter([{ path: 'chat', component: ChatEmpty }])] });
  });

  const notice = (harness: RouterTestingHarness): string | null =>
    (harness.fixture.nativeElement.querySelector('p.notice') as HTMLElement | null)?.textContent?.trim() ??
    null;

  it('says why an operator sent back from an admin-only page landed here', async () => {
    const harness = await RouterTestingHarness.create('/chat?denied=settings');
    expect(notice(harness)).toBe(
      'Settings is open to administrators only. Ask an administrator if something there needs to change.',
    );
    await harness.navigateByUrl('/chat?denied=operators');
    expect(notice(harness)).toMatch(/^Operators is open to administrators only\./);
    await harness.navigateByUrl('/chat');
    expect(notice(harness)).toBeNull();
  });

  it('shows no notice for a page it does not know', async () => {
    const harness = await RouterTestingHarness.create('/chat?denied=%3Cscript%3E');
    expect(notice(harness)).toBeNull();
  });
});
