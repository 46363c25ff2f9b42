import 'reflect-metadata';
import type { CountFindingsByResult } from '@corpus-chat/contracts';
import { QUOTE_MAX_CHARS } from './answer-languages';
import { answerWriter } from './answer-writer';
import type { PlannedScope } from './question-plan';

/** The note a follow-up's answer ends its first line with (`merged` is the follow-up's scope). */
const followUpNote = (previous: PlannedScope, asked: PlannedScope, merged: PlannedScope) =>
  answerWriter('en')
    .withFollowUpNote({ ...merged, followUp: true, previous, asked }, '')
    .trim();

const {
  breakdown: breakdownAnswer,
  scopedCount: scopedCountAnswer,
  top: topAnswer,
  say,
  unsupported: unsupportedAnswer,
} = answerWriter('en');

const cwes: CountFindingsByResult = {
  groupBy: 'cwe',
  total: 10,
  filter: {},
  groups: [
    { key: 'none', label: 'none', count: 5 },
    { key: '561', label: 'CWE-561', count: 3 },
    { key: '79', label: 'CWE-79', count: 2 },
  ],
};

describe('answer writer', () => {
  it('prints each CWE label once, whether the query layer labels it "CWE-n", a name, or nothing', () => {
    const text = breakdownAnswer(cwes);
    expect(text).toContain('- CWE-561: 3');
    expect(text).toContain('- CWE-79: 2');
    expect(text).toContain('- no CWE: 5');
    expect(text).not.toMatch(/CWE-(\d+)\W+CWE-\1\b/);
    expect(topAnswer(cwes, 1)).toContain('**CWE-561** with **3**');
  });

  it('says which parts a follow-up replaced, added and kept', () => {
    expect(
      followUpNote(
        { filter: { text: 'SQL injection' } },
        { filter: { text: 'XSS' } },
        { filter: { text: 'XSS' } },
      ),
    ).toBe("Follow-up on the previous question: text 'XSS' instead of text 'SQL injection'.");
    expect(
      followUpNote(
        { filter: { text: 'SQL injection' } },
        { filter: { severity: 'high' } },
        { filter: { text: 'SQL injection', severity: 'high' } },
      ),
    ).toBe("Follow-up on the previous question: narrowed to severity high; kept text 'SQL injection'.");
  });

  it('shows how a computed count was made', () => {
    const text = scopedCountAnswer({
      total: 403,
      filter: {},
      scope: { severities: ['critical', 'high'] },
      bySeverity: [
        { severity: 'critical', count: 70, excluded: 0 },
        { severity: 'high', count: 333, excluded: 0 },
      ],
    });
    expect(text.split('\n')[0]).toBe('**403** findings are critical or high: critical 70 + high 333.');
    const minus = scopedCountAnswer({
      total: 3354,
      filter: {},
      scope: { exclude: { text: 'SQL injection' } },
      bySeverity: (['critical', 'high', 'medium', 'low', 'info'] as const).map((severity, i) => ({
        severity,
        count: [70, 333, 2273, 588, 274][i],
        excluded: [3, 6, 172, 3, 0][i],
      })),
    });
    expect(minus.split('\n')[0]).toBe(
      "**3354** findings do not match text 'SQL injection': 3538 in all, minus 184 that match it.",
    );
  });

  it('a refusal names what it could not apply and states no number', () => {
    const text = unsupportedAnswer([{ text: 'imported last week', reason: 'time' }], {
      kind: 'count_findings',
      list: false,
      filter: { severity: 'critical' },
      followUp: false,
    });
    expect(text).toContain("I couldn't apply 'imported last week'");
    expect(text).toContain('the number of findings with severity critical');
    expect(text).not.toMatch(/\d/);
  });

  it('repeats at most QUOTE_MAX_CHARS of the operator’s words, cut with an ellipsis', () => {
    const pasted = 'x'.repeat(20_000);
    const text = unsupportedAnswer([{ text: pasted, reason: 'unknown', topicLike: true }], {
      kind: 'count_findings',
      list: false,
      filter: {},
      followUp: false,
    });
    const runs = text.match(/x+/g) ?? [];
    expect(runs.length).toBeGreaterThan(0);
    expect(Math.max(...runs.map((r) => r.length))).toBeLessThan(QUOTE_MAX_CHARS);
    expect(text).toContain('x…');
    expect(text.length).toBeLessThan(2000);
  });

  it('says how long an unread message was and what the limit is', () => {
    expect(say('tooLong', { length: 120_000, max: 2000 })).toMatch(
      /^That message is 120,000 characters long; I read questions of up to 2,000 characters/,
    );
  });
});
