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

const UNITS: Record<string, number> = {
  zero: 0,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
  ноль: 0,
  два: 2,
  две: 2,
  три: 3,
  четыре: 4,
  пять: 5,
  шесть: 6,
  семь: 7,
  восемь: 8,
  девять: 9,
  десять: 10,
  одиннадцать: 11,
  двенадцать: 12,
  тринадцать: 13,
  четырнадцать: 14,
  пятнадцать: 15,
  шестнадцать: 16,
  семнадцать: 17,
  восемнадцать: 18,
  девятнадцать: 19,
};
const TENS: Record<string, number> = {
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
  двадцать: 20,
  тридцать: 30,
  сорок: 40,
  пятьдесят: 50,
  шестьдесят: 60,
  семьдесят: 70,
  восемьдесят: 80,
  девяносто: 90,
};
const HUNDREDS: Record<string, number> = {
  сто: 100,
  двести: 200,
  триста: 300,
  четыреста: 400,
  пятьсот: 500,
  шестьсот: 600,
  семьсот: 700,
  восемьсот: 800,
  девятьсот: 900,
};
/** "one" and "один" are far more often a pronoun than a count: they count only before "hundred"/"thousand". */
const ONE = new Set(['one', 'один', 'одна', 'одно', 'a', 'an']);
const SCALES: Record<string, number> = {
  hundred: 100,
  thousand: 1000,
  тысяча: 1000,
  тысячи: 1000,
  тысяч: 1000,
};

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
  if (lower in UNITS) return UNITS[lower];
  if (lower in TENS) return TENS[lower];
  if (lower in HUNDREDS) return HUNDREDS[lower];
  const [tens, unit, ...rest] = lower.split('-');
  if (rest.length || !(tens in TENS) || unit === undefined) return undefined;
  const u = ONE_UNIT.has(unit) ? 1 : UNITS[unit];
  return u !== undefined && u > 0 && u < 10 ? TENS[tens] + u : undefined;
}

function isNumberWord(lower: string): boolean {
  return lower in SCALES || wordValue(lower) !== undefined;
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
      if (w in SCALES) {
        if (current === 0) current = 1;
        if (SCALES[w] === 100) current *= 100;
        else {
          total += current * 1000;
          current = 0;
        }
      } else if (ONE.has(w)) {
        if (!seen && next && next in SCALES) current = 1;
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
