import { mulberry32 } from '@corpus-chat/ingest/testing';
import { parseQuestion } from './question-parser';
import type { PlannedQuestion } from './question-plan';

/**
 * Property: no silent drops. A content word the planner does not know, put anywhere in a question
 * of a shape it answers, is either applied (it appears in the plan: as a topic, a report or scanner
 * name) or the plan declines (`unsupported`, `out_of_scope`). Questions are generated from a seed.
 */
const SHAPES = [
  'how many findings are there?',
  'how many critical findings relate to SQL injection?',
  'which report has the most high findings?',
  'give me a breakdown of findings by severity',
  'how many findings in the trivy reports?',
  'what percentage of findings are critical?',
  'what is the most common vulnerability?',
  'most common CWE in the zap scans?',
  'how many findings have CWE-79?',
  'crits in juice shop?',
  'how many medium findings are in scb__juice-shop-v12.10.2.json?',
  'count the XSS bugs',
  'top 3 reports by number of findings',
];
const NONCES = ['zorblax', 'quuxfile', 'Vexnor', 'plimbo7', 'frobnic'];

function declines(plan: PlannedQuestion): boolean {
  return plan.kind === 'unsupported' || plan.kind === 'out_of_scope' || plan.kind === 'too_long';
}

it('every generated question applies an unknown content word or declines', () => {
  const random = mulberry32(20261201);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)];
  const dropped: string[] = [];
  for (let n = 0; n < 400; n++) {
    const words = pick(SHAPES).replace(/\?$/, '').split(' ');
    const nonce = pick(NONCES);
    words.splice(1 + Math.floor(random() * words.length), 0, nonce);
    const question = `${words.join(' ')}?`;
    const plan = parseQuestion(question);
    if (!declines(plan) && !JSON.stringify(plan).toLowerCase().includes(nonce.toLowerCase()))
      dropped.push(`${question} → ${JSON.stringify(plan)}`);
  }
  expect(dropped).toEqual([]);
});
