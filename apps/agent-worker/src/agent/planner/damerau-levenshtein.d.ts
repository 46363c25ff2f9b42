/** Types for `damerau-levenshtein` 1.x (ships none). */
declare module 'damerau-levenshtein' {
  function damerauLevenshtein(
    a: string,
    b: string,
    limit?: number,
  ): { steps: number; relative: number; similarity: number };
  export = damerauLevenshtein;
}
