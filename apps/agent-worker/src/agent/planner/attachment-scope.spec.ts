import 'reflect-metadata';
import { answerWriter } from './answer-writer';
import { attachmentQuestion, scopeToReport } from './attachment-scope';
import { parseQuestion } from './question-parser';

describe('attachmentQuestion', () => {
  it.each([
    ["What's in this file?", true],
    ['what is in the attachment', true],
    ['Give me a summary of the uploaded file', true],
    ['what does it contain?', true],
    ['how many criticals in it?', false],
    ['How many high findings does this file have?', false],
    ['which CWE ids are in the attached report?', false],
  ])('%s points at the attachment (overview: %s)', (question, overview) => {
    expect(attachmentQuestion(question)).toMatchObject({ overview });
  });

  it('leaves questions about the corpus alone', () => {
    for (const q of [
      'How many critical findings are there?',
      'Which report has the most criticals?',
      'show finding 12',
    ])
      expect(attachmentQuestion(q)).toBeNull();
  });

  it('keeps the rest of the question for the planner, scoped to the report', () => {
    const about = attachmentQuestion('how many criticals in it?')!;
    expect(about.rest).toBe('how many criticals?');
    const plan = scopeToReport(parseQuestion(about.rest), 42);
    expect(plan).toMatchObject({ kind: 'count_findings', filter: { severity: 'critical', reportId: 42 } });
  });
});

describe('an attached file not imported (yet)', () => {
  it('says a file still importing has no count yet, and why a refused one has none', () => {
    expect(
      answerWriter('en').say('attachment.notReady', {
        file: 'a.xml',
        status: 'parsing',
        reportId: null,
        error: null,
        duplicate: false,
      }),
    ).toContain('is still being imported');
    const failed = answerWriter('en').say('attachment.notReady', {
      file: 'b.csv',
      status: 'failed',
      reportId: null,
      error: 'unrecognised format: no CSV layout matches',
      duplicate: false,
    });
    expect(failed).toContain('was not imported: unrecognised format: no CSV layout matches');
  });
});
