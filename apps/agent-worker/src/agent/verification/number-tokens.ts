/**
 * Reads the numbers a text states: digits with separators (a dot read both ways), percentages,
 * English and Russian number words, numeric identifiers (`CVE-2021-44228`). List markers, ordinals
 * and digits inside words (`log4j`) are not numbers.
 */

/** One number as written, at `start` in the text. */
export type NumberToken = { start: number } & (
  | {
      kind: 'number';
      /** The text as written ("1,768", "twelve", "1.6%"). */
      text: string;
      value: number;
      /** Digits written after the decimal point (0 for integers and number words). */
      decimals: number;
      percent: boolean;
      /** For "1 768" grouped by a plain space: the numbers it reads as when the space separates two numbers. */
      spaced?: number[];
      /** Written just before "…": the start of a longer number that was cut. */
      cut: boolean;
      /** For "4.439" (a dot grouping thousands, as in German or Spanish): the integer it reads as. */
      dotted?: number;
    }
  | {
      kind: 'identifier';
      text: string;
      /** The parts made of digits only, split at `-`, `:` and a timestamp's `T` ("2021", "44228"; "2.14.1" for a version). */
      parts: string[];
    }
);

/**
 * A number (grouped thousands, or digits with a decimal point or a comma that cannot be a
 * thousands separator) not inside a word, or else a word, possibly joined by `-`/`.`/`:`.
 */
const TOKEN =
  /(?<![\p{L}\p{N}_])(?:(?<num>\d{1,3}(?:[,'’ \u00a0\u2009\u202f]\d{3}(?!\d))+(?:\.\d+)?|\d+(?:\.\d+|,(?!\d{3}(?!\d))\d+)?)(?![\p{L}\p{N}_]|[-.:][\p{L}\p{N}_])|(?<word>[\p{L}\p{N}_]+(?:[-.:][\p{L}\p{N}_]+)*))/gu;

/** After a number: a percent sign or word. */
const PERCENT_AFTER = /^(?:[ \u00a0\u2009\u202f]?%|\s+(?:percent|per cent|процент\p{L}*)(?![\p{L}]))/iu;

/** List markers at the start of a line, also in a heading, a quote or bold: `1.`, `2)`, `#3`, `## 4.`, `**5.**`, `**#6:`. */
const LIST_MARKER =
  /^([ \t]*(?:#{1,6}[ \t]+|>[ \t]*)?)(?:\*\*|__)?(?:\d{1,3}[.)]|#\d{1,3}:?)(?:\*\*|__)?(?=[ \t])/gm;

/** `1st`, `22nd`, `3-й`, `5-го`. */
const ORDINAL = /^\d+(?:st|nd|rd|th|-?(?:й|я|е|го|му|м|х|ми|ый|ий|ой|ая|ое|ые|ых))$/iu;

/** `list`'s words valued `first`, `first + step`, …; a `-` holds the place of a word left out. */
const valued = (list: string, first: number, step = 1): [string, number][] =>
  list.split(' ').flatMap((w, i): [string, number][] => (w === '-' ? [] : [[w, first + i * step]]));
/** Without "one"/"один" (see `ONE`). */
const UNITS = new Map([
  ...valued('zero - two three four five six seven eight nine ten eleven twelve thirteen fourteen', 0),
  ...valued('fifteen sixteen seventeen eighteen nineteen', 15),
  ...valued('ноль - два три четыре пять шесть семь восемь девять десять одиннадцать двенадцать', 0),
  ...valued('тринадцать четырнадцать пятнадцать шестнадцать семнадцать восемнадцать девятнадцать', 13),
  ['две', 2],
]);
const TENS = new Map([
  ...valued('twenty thirty forty fifty sixty seventy eighty ninety', 20, 10),
  ...valued('двадцать тридцать сорок пятьдесят шестьдесят семьдесят восемьдесят девяносто', 20, 10),
]);
const HUNDREDS = new Map(
  valued('сто двести триста четыреста пятьсот шестьсот семьсот восемьсот девятьсот', 100, 100),
);
/** "one" and "один" are far more often a pronoun than a count: they count only before "hundred"/"thousand". */
const ONE = new Set(['one', 'один', 'одна', 'одно', 'a', 'an']);
const SCALES = new Map([['hundred', 100], ...valued('thousand тысяча тысячи тысяч', 1000, 0)]);

/** Every number `text` states, in order. */
export function numberTokens(text: string): NumberToken[] {
  const masked = text.replace(LIST_MARKER, (m, lead: string) => lead + ' '.repeat(m.length - lead.length));
  const out: NumberToken[] = [];
  const words: { text: string; start: number; end: number }[] = [];
  const flushWords = () => {
    out.push(...readNumberWords(words, text));
    words.length = 0;
  };
  for (const m of masked.matchAll(TOKEN)) {
    const start = m.index ?? 0;
    const end = start + m[0].length;
    if (m.groups?.num) {
      flushWords();
      out.push(plainNumber(text, m[0], start, end));
      continue;
    }
    const word = m[0];
    const lower = word.toLowerCase();
    if (isNumberWord(lower) || ONE.has(lower) || lower === 'and') {
      // Adjacent words ("twenty one", "a hundred") are read together; anything else between them ends the run.
      const prev = words.at(-1);
      if (prev && !/^[\s-]*$/u.test(text.slice(prev.end, start))) flushWords();
      words.push({ text: word, start, end });
      continue;
    }
    flushWords();
    if (/^\d{1,3}(?:\.\d{3}){2,}$/.test(word)) {
      // "4.439.000": thousands grouped by dots, never a version with three-digit parts.
      const value = Number(word.replace(/\./g, ''));
      out.push({ kind: 'number', start, text: word, value, decimals: 0, percent: false, cut: false });
      continue;
    }
    const parts = identifierParts(word);
    if (parts) out.push({ kind: 'identifier', text: word, parts, start });
  }
  flushWords();
  return out;
}

function plainNumber(text: string, written: string, start: number, end: number): NumberToken {
  let decimals = 0;
  let value: number;
  let spaced: number[] | undefined;
  const decimal = /[.,](\d+)$/.exec(written);
  const grouped = /^\d{1,3}(?:[,'’ \u00a0\u2009\u202f]\d{3}(?!\d))+/.exec(written);
  if (grouped) {
    const frac = written.slice(grouped[0].length);
    decimals = frac ? frac.length - 1 : 0;
    value = Number(grouped[0].replace(/[^\d]/g, '') + frac);
    if (!frac && grouped[0].includes(' '))
      spaced = grouped[0].split(' ').map((g) => Number(g.replace(/[^\d]/g, '')));
  } else if (decimal) {
    decimals = decimal[1].length;
    value = Number(written.replace(',', '.'));
  } else value = Number(written);
  const after = PERCENT_AFTER.exec(text.slice(end, end + 16));
  const cut = text.startsWith('…', end) || text.startsWith('...', end);
  return {
    kind: 'number',
    start,
    text: after ? written + after[0] : written,
    value,
    decimals,
    percent: !!after,
    ...(spaced && spaced.length > 1 ? { spaced } : {}),
    ...(/^\d{1,3}\.\d{3}$/.test(written) ? { dotted: Number(written.replace('.', '')) } : {}),
    cut,
  };
}

/** The numeric parts of a word with digits joined to other parts by `-`/`.`/`:`, or undefined (a plain word, an ordinal, digits inside a word). */
function identifierParts(word: string): string[] | undefined {
  if (!/\d/.test(word) || ORDINAL.test(word)) return undefined;
  const parts = word.split(/[-:]|(?<=\d)T(?=\d)/).filter((p) => /^\d+(?:\.\d+)*$/.test(p));
  if (!parts.length || !/[-.:]/.test(word)) return undefined;
  return parts;
}

/** "one"/"один" after a tens word ("twenty one", "twenty-one"). */
const ONE_UNIT = new Set(['one', 'один', 'одна', 'одно']);

/** The value of one number word ("twelve", "twenty-one"), or undefined. */
function wordValue(lower: string): number | undefined {
  const v = UNITS.get(lower) ?? TENS.get(lower) ?? HUNDREDS.get(lower);
  if (v !== undefined) return v;
  const [tens, unit, ...rest] = lower.split('-');
  const t = TENS.get(tens);
  if (rest.length || t === undefined || unit === undefined) return undefined;
  const u = ONE_UNIT.has(unit) ? 1 : UNITS.get(unit);
  return u !== undefined && u > 0 && u < 10 ? t + u : undefined;
}

function isNumberWord(lower: string): boolean {
  return SCALES.has(lower) || wordValue(lower) !== undefined;
}

/**
 * Number words in a run of adjacent words: "twelve", "twenty-one", "twenty one", "a hundred",
 * "two thousand and five". "one"/"a" alone and "and" alone are not numbers.
 */
function readNumberWords(
  words: readonly { text: string; start: number; end: number }[],
  text: string,
): NumberToken[] {
  const out: NumberToken[] = [];
  let i = 0;
  while (i < words.length) {
    let total = 0;
    let current = 0;
    let seen = false;
    let last = -1;
    for (let j = i; j < words.length; j++) {
      const w = words[j].text.toLowerCase();
      const next = words[j + 1]?.text.toLowerCase();
      // Whether a unit may follow what was read: nothing yet, a round hundred/thousand, or a bare tens word.
      const open = current % 100 === 0 || (current % 100 >= 20 && current % 10 === 0);
      const scale = SCALES.get(w);
      if (scale !== undefined) {
        if (current === 0) current = 1;
        if (scale === 100) current *= 100;
        else {
          total += current * 1000;
          current = 0;
        }
      } else if (ONE.has(w)) {
        if (!seen && next && SCALES.has(next)) current = 1;
        else if (seen && ONE_UNIT.has(w) && current % 100 >= 20 && current % 10 === 0) current += 1;
        else break;
      } else if (w === 'and') {
        if (!seen || !next || wordValue(next) === undefined) break;
        continue;
      } else {
        const v = wordValue(w)!;
        if (v >= 100 ? seen && current !== 0 : seen && (!open || (v >= 10 && current % 100 !== 0))) break;
        current += v;
      }
      seen = true;
      last = j;
    }
    if (last < 0) {
      i += 1;
      continue;
    }
    const written = text.slice(words[i].start, words[last].end);
    const after = PERCENT_AFTER.exec(text.slice(words[last].end, words[last].end + 16));
    out.push({
      kind: 'number',
      start: words[i].start,
      text: after ? written + after[0] : written,
      value: total + current,
      decimals: 0,
      percent: !!after,
      cut: false,
    });
    i = last + 1;
  }
  return out;
}
