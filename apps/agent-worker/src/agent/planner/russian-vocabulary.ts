/**
 * Russian questions, rewritten into the English words of `vocabulary.ts` ("сколько критических
 * находок" → "how many critical findings") by stem, as Russian inflects; a word not in the tables
 * is left as written, so the parser names it as a part it did not understand.
 */
import data from './vocabulary.data.json';

/** A whole-word, case-insensitive pattern (`\b` misses Cyrillic); е also matches ё, `~` a stem's endings. */
function words(source: string): RegExp {
  const yo = source.replace(/\[[^\]]*\]|е/g, (m) => (m === 'е' ? '[её]' : m.replace(/е/g, 'её')));
  return new RegExp(`(?<![\\p{L}\\p{N}_])(?:${yo.replace(/~/g, '\\p{L}*')})(?![\\p{L}\\p{N}_])`, 'giu');
}

/** Topics (weakness classes), phrases, then stems, in order: the first match wins; `$1` is a group. */
const TABLES = Object.values(data.russian)
  .flat()
  .map(([source, english]): [RegExp, string] => [words(source), english]);

/** A piece of the question: text no table has replaced yet, or [English, the operator's words]. */
type Piece = string | [string, string];

/** The unreplaced `pieces` cut at each match of `re`, a match becoming [`to(match)`, the match]. */
function replaceIn(pieces: Piece[], re: RegExp, to: (m: RegExpMatchArray) => string): Piece[] {
  return pieces.flatMap((piece) => {
    if (typeof piece !== 'string') return [piece];
    const out: Piece[] = [];
    let pos = 0;
    for (const m of piece.matchAll(re)) {
      out.push(piece.slice(pos, m.index), [to(m), m[0]]);
      pos = m.index! + m[0].length;
    }
    return [...out, piece.slice(pos)];
  });
}

/**
 * The question with its Russian words replaced by the planner's English vocabulary (file names,
 * CWE ids, numbers, Latin words and quoted text stay as written), and a way back from a part of it
 * to the operator's wording; undefined for a question without Cyrillic letters.
 */
export function readRussian(question: string) {
  if (!/\p{Script=Cyrillic}/u.test(question)) return undefined;
  // Quoted text is the operator's exact search: replaced by itself, so no table touches it.
  const quoted = question.replace(/[«„“]([^»“”\n]{1,200})[»“”]/gu, (_, q: string) => `"${q}"`);
  let pieces = replaceIn([quoted], /"([^"\n]{1,200})"/gu, (m) => m[0]);
  pieces = pieces.map((p) => (typeof p === 'string' ? p.replace(/№\s?/gu, '#') : p));
  for (const [re, english] of TABLES)
    pieces = replaceIn(pieces, re, (m) => english.replace(/\$(\d)/g, (_, k: string) => m[Number(k)] ?? ''));
  // The segments in order: [english, the operator's words] (equal outside replacements).
  const segments = pieces.map((p) => (typeof p === 'string' ? [p, p] : p));
  const raw = segments.map(([en]) => en).join('');
  return {
    text: raw
      .replace(/[ \t]{2,}/g, ' ')
      .replace(/ ([?!.,])/g, '$1')
      .trim(),
    original(part: string): string {
      const pieces = part.trim().split(/\s+/);
      const escaped = pieces.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
      const found = new RegExp(escaped.join('\\s*'), 'u').exec(raw);
      if (!found) return part;
      const [from, to] = [found.index, found.index + found[0].length];
      let pos = 0;
      let out = '';
      for (const [en, ru] of segments) {
        const [a, b] = [pos, pos + en.length];
        pos = b;
        if (b <= from || a >= to) continue;
        // A replaced phrase is given whole; unchanged text is cut where the part is.
        out += en === ru ? en.slice(Math.max(0, from - a), Math.min(en.length, to - a)) : ru;
      }
      return out.replace(/\s+/g, ' ').trim() || part;
    },
  };
}
