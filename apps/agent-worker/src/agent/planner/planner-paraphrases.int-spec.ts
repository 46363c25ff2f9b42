/**
 * A seeded set of paraphrases of the shared questions' shapes (synonyms, abbreviations, typos, word
 * order, casing, follow-ups) through the real chat path: no answer may state a wrong number.
 * Declining is allowed; the share answered exactly is printed. Expected numbers come from
 * shared/questions/questions.json.
 */
import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import { loadQuestions, mulberry32, sharedDir, type SharedQuestion } from '@corpus-chat/ingest/testing';
import { type TestDatabase } from '@corpus-chat/persistence/testing';
import { plannerOnQuestionsCorpus } from '../testing/questions-corpus-planner';
import { scoreAnswer } from '../../eval/answer-score';
import { TestThread } from '../testing/turn-harness';
import type { PlannerRunner } from './planner-runner';

const { questions } = loadQuestions();
const r2: SharedQuestion[] = JSON.parse(
  fs.readFileSync(path.join(sharedDir(), 'questions', 'questions-r2.json'), 'utf8'),
).questions;
/** A question's expected answer; `share:qNN` is that severity's count of q02's total (r21's shape on the round-1 files). */
const expectOf = (id: string): SharedQuestion['expect'] => {
  const share = /^share:(q\d+)$/.exec(id);
  if (share) return { numbers: [expectOf(share[1]).numbers![0], expectOf('q02').numbers![0]] };
  return [...questions, ...r2].find((q) => q.id === id)!.expect;
};
let db: TestDatabase;
let planner: PlannerRunner;

beforeAll(async () => {
  ({ db, planner } = await plannerOnQuestionsCorpus());
}, 180_000);
afterAll(async () => db?.drop(), 60_000);

const SEVERITY: Record<string, [string, string[]]> = {
  q03: ['critical', ['critical', 'crit', 'crits', 'CRITICAL', 'critcal', 'Critical']],
  q04: ['high', ['high', 'highs', 'high-severity', 'hihg', 'HIGH']],
  q05: ['medium', ['medium', 'med', 'moderate', 'meduim', 'Medium']],
  q06: ['low', ['low', 'lows', 'low-severity', 'LOW']],
  q07: ['info', ['informational', 'info', 'Informational']],
};
const TOPIC: Record<string, string[]> = {
  q09: ['SQL injection', 'sqli', 'SQL injections', 'sql injection'],
  q10: ['cross-site scripting', 'cross site scripting', 'XSS'],
  q12: ['path traversal', 'Path Traversal'],
  q13: ['command injection', 'Command Injection'],
  q15: ['jQuery', 'jquery'],
  q18: ['glibc', 'GLIBC'],
};
const REPORT: Record<string, string[]> = {
  q22: ['dd__flawfinder.sarif', 'the flawfinder report', 'DD__FLAWFINDER.SARIF'],
  q23: ['scb__juice-shop-v12.10.2.json', 'the juice shop scan', 'juice shop'],
};

/** Paraphrases with the id of the question whose expected answer they share. */
function generate(): { id: string; turns: string[] }[] {
  const out: { id: string; turns: string[] }[] = [];
  for (const [id, [, words]] of Object.entries(SEVERITY)) {
    for (const s of words) {
      for (const t of [
        'how many {s} findings are there?',
        '{s} count',
        'count the {s} issues',
        'number of {s} vulns?',
        'HOW MANY {s} FINDINGS',
        'how many findings are {s}?',
        '{s} findings: how many?',
        'how mnay {s} vulnerabilities do we have',
      ])
        out.push({ id, turns: [t.replace('{s}', s)] });
    }
  }
  for (const [id, topics] of Object.entries(TOPIC)) {
    for (const t of topics) {
      for (const tpl of [
        'how many findings relate to {t}?',
        'how many {t} findings?',
        'count findings mentioning {t}',
        'number of issues about {t}',
        'How many findings mention {t}?',
        'findings related to {t}: how many?',
        'how many fidnings relate to {t}',
      ])
        out.push({ id, turns: [tpl.replace('{t}', t)] });
    }
  }
  for (const [id, names] of Object.entries(REPORT)) {
    for (const r of names)
      for (const tpl of [
        'how many findings in {r}?',
        'how many findings does {r} contain?',
        'count the findings in {r}',
        'number of issues in {r}',
      ])
        out.push({ id, turns: [tpl.replace('{r}', r)] });
  }
  for (const [id, sev] of [
    ['q26', 'critical'],
    ['q28', 'high'],
  ] as const) {
    for (const s of SEVERITY[sev === 'critical' ? 'q03' : 'q04'][1]) {
      for (const tpl of [
        'which report has the most {s} findings?',
        "which scan's got the most {s}",
        'report with the highest number of {s} findings?',
        'Which file contains the most {s} issues?',
      ])
        out.push({ id, turns: [tpl.replace('{s}', s)] });
    }
  }
  for (const tpl of [
    'how many findings in total?',
    'total number of findings',
    'How many findings are there?',
    'how many vulns do we have overall?',
    'count all findings',
  ])
    out.push({ id: 'q02', turns: [tpl] });
  for (const tpl of [
    'how many findings have CWE-79?',
    'cwe 79 count',
    'number of CWE-79 findings',
    'How many findings are tagged cwe-79?',
  ])
    out.push({ id: 'q31', turns: [tpl] });
  for (const first of [
    'How many findings relate to SQL injection?',
    'how many sqli findings',
    'count SQL injection issues',
  ])
    for (const next of [
      'And how many of those are high?',
      'how many of them are high severity?',
      'and the high ones?',
      'what about high?',
    ])
      out.push({ id: 'q35', turns: [first, next] });
  for (const first of ['How many findings mention cookies?', 'count findings mentioning cookies'])
    for (const next of ['And how many of those are low severity?', 'how many of them are low?'])
      out.push({ id: 'q37', turns: [first, next] });
  for (const [id, [, words]] of Object.entries(SEVERITY)) {
    for (const s of words.slice(0, 3)) {
      for (const tpl of [
        'what percentage of findings are {s}?',
        'What share of all findings are {s}?',
        'what proportion of the findings is {s}',
        'percent of findings that are {s}?',
      ])
        out.push({ id: `share:${id}`, turns: [tpl.replace('{s}', s)] });
    }
  }
  // r19's shape: the report of a ranking, referred to as "it" / "that report".
  for (const first of [
    'Which report contains the most critical findings?',
    'which report has the most crits?',
    "which scan's got the most critical issues",
  ])
    for (const next of [
      'And how many high severity findings does it have?',
      'how many highs does that report have?',
      'and how many of those are high?',
    ])
      out.push({ id: 'r19', turns: [first, next] });
  return out;
}

it('generates at least 300 paraphrases, and none is answered with a wrong number', async () => {
  const cases = generate();
  expect(cases.length).toBeGreaterThanOrEqual(300);
  // A seeded shuffle so threads do not run in template order (the answers must not depend on it).
  const random = mulberry32(7);
  cases.sort(() => random() - 0.5);
  const wrong: string[] = [];
  let exact = 0;
  for (const c of cases) {
    const thread = new TestThread(planner);
    let text = '';
    let counted = false;
    for (const t of c.turns) {
      const turn = await thread.ask(t);
      text = turn.outcome.content;
      counted = turn.events.some(
        (e) => e.type === 'tool.result' && e.ok && (e as { name?: string }).name !== 'list_all_reports',
      );
    }
    const score = scoreAnswer(expectOf(c.id), text);
    if (score.exact) exact++;
    else if (counted) wrong.push(`${c.id} ${c.turns.join(' → ')}: ${text.split('\n')[0]}`);
  }
  console.log(
    `paraphrases: ${cases.length}, answered exactly: ${exact} (${((100 * exact) / cases.length).toFixed(1)}%), declined: ${cases.length - exact - wrong.length}`,
  );
  expect(wrong).toEqual([]);
}, 600_000);
