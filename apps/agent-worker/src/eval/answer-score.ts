/**
 * How an answer is checked against a question of `shared/questions/*.json` ("How a test uses it" in
 * its README): the planner's acceptance tests and the model evaluation score answers the same way.
 */

/** What a question expects of the answer to its last turn. */
export interface ExpectedAnswer {
  numbers?: number[];
  names?: string[];
  noNumbers?: boolean;
}

export interface AnswerScore {
  /** Every expected number and name appears, and a `noNumbers` answer states no number. */
  exact: boolean;
  missingNumbers: number[];
  /** Expected names the answer does not contain (compared case-insensitively). */
  missingNames: string[];
  /** For a `noNumbers` question: the numbers the answer states anyway (list markers aside); else empty. */
  statedNumbers: number[];
}

/** Every number written in an answer (`1,768` read as 1768). */
export function numbersIn(text: string): number[] {
  return [...text.matchAll(/\d[\d,]*(?:\.\d+)?/g)]
    .map((m) => Number(m[0].replace(/,(?=\d{3}\b)/g, '').replace(/,$/, '')))
    .filter((n) => !Number.isNaN(n));
}

/**
 * Scores `text` against `expected`: numbers by value (`1,768` is 1768), names case-insensitively; a
 * `noNumbers` answer may only number a list.
 */
export function scoreAnswer(expected: ExpectedAnswer, text: string): AnswerScore {
  const found = new Set(numbersIn(text));
  const lower = text.toLowerCase();
  const missingNumbers = (expected.numbers ?? []).filter((n) => !found.has(n));
  const missingNames = (expected.names ?? []).filter((name) => !lower.includes(name.toLowerCase()));
  const statedNumbers = expected.noNumbers ? numbersIn(text.replace(/^(\s*)\d+[.)](?=\s)/gm, '$1')) : [];
  return {
    exact: !missingNumbers.length && !missingNames.length && !statedNumbers.length,
    missingNumbers,
    missingNames,
    statedNumbers,
  };
}
