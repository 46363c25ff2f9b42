import 'reflect-metadata';
import { parseQuestion } from './question-parser';
import { shareFault } from './question-share';

/** Shares: the whole is the group the question names with every scope it puts on it; the part narrows it. */
describe('share plans', () => {
  const burpHigh = { whole: { format: 'burp' }, filter: { format: 'burp', severity: 'high' } };
  it.each([
    'what percentage of high-severity issues are in the burp reports?',
    'what % of the findings in the burp reports are high?',
    'What share of the burp findings are high?',
    'how much of the burp findings is high?',
    'what part of the findings in the burp reports are high?',
    'what proportion of burp issues are high severity?',
    'What percent of the burp findings are highs?',
  ])('%s → whole = burp findings, part = burp ∧ high', (q) => {
    expect(parseQuestion(q)).toMatchObject({ kind: 'share', ...burpHigh, attached: ['format'] });
  });

  it.each([
    ['what % of findings are critical?', {}, { severity: 'critical' }],
    ['what share of findings are in the trivy reports?', {}, { format: 'trivy' }],
    [
      'what ratio of the critical zap findings are confirmed?',
      { format: 'zap', severity: 'critical' },
      { format: 'zap', severity: 'critical', status: 'confirmed' },
    ],
    [
      'what percentage of the findings in dd__flawfinder.sarif are low?',
      { reportName: 'dd__flawfinder.sarif' },
      { reportName: 'dd__flawfinder.sarif', severity: 'low' },
    ],
  ])('%s', (q, whole, filter) => {
    expect(parseQuestion(q)).toMatchObject({ kind: 'share', whole, filter });
  });

  it('a report named by part of its name scopes the whole unless it is what is asked', () => {
    expect(parseQuestion('what % of the findings in the juice shop report are high?')).toMatchObject({
      kind: 'share',
      whole: {},
      hintInWhole: true,
      reportHint: { text: 'juice shop' },
    });
    expect(parseQuestion('what share of findings are in the juice shop report?')).toMatchObject({
      kind: 'share',
      hintInWhole: false,
    });
  });

  it('refuses a plan whose whole lacks a scope the question attached', () => {
    // Hand-built: the old reading of "percentage of high issues in the burp reports" (whole = all highs).
    expect(shareFault({ format: 'burp', severity: 'high' }, { severity: 'high' }, ['format'])).toMatch(
      /lacks.*format/,
    );
  });

  it('refuses a plan whose part is not within its whole', () => {
    expect(shareFault({ severity: 'high' }, { format: 'burp' }, ['format'])).toMatch(/not within/);
    expect(shareFault({ format: 'zap', severity: 'high' }, { format: 'burp' }, [])).toMatch(/not within/);
    expect(shareFault({ format: 'burp', severity: 'high' }, { format: 'burp' }, ['format'])).toBeUndefined();
  });
});
