import { splitQuestions } from './question-parser';

describe('splitQuestions', () => {
  it.each([
    [
      'How many findings are in the zap reports? And how many of them are high?',
      ['How many findings are in the zap reports?', 'And how many of them are high?'],
    ],
    [
      'How many highs are there. And in the trivy reports?',
      ['How many highs are there.', 'And in the trivy reports?'],
    ],
    ['how many in dd__flawfinder.sarif?', ['how many in dd__flawfinder.sarif?']],
    ['Top 3 reports by criticals? ?', ['Top 3 reports by criticals?']],
    ['What is 3.5 in the zap reports', ['What is 3.5 in the zap reports']],
  ])('%s', (message, questions) => {
    expect(splitQuestions(message)).toEqual(questions);
  });
});
