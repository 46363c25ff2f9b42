/**
 * Russian questions for the planner: `normaliseRussian` rewrites a Russian question into the
 * English words of `vocabulary.ts` ("сколько критических находок в отчёте X?" → "how many critical
 * findings in report X?"), which `parseQuestion` then reads like any other. Words are matched by
 * stem (Russian inflects: "находка", "находки", "находок" are one noun), ё matching as е. Weakness classes
 * become their English names from weakness-classes.json, so the text search and the CWE widening
 * are the same as for an English question. A Russian word not in these tables is left as written:
 * the parser then names it as a part it did not understand, exactly as for an unknown English word.
 */
import type { PlannedQuestion } from './question-plan';

/** `~` in a pattern: the rest of an inflected word (a stem's endings). */
const ENDING = '\\p{L}*';

/**
 * A whole-word, case-insensitive pattern (JavaScript's `\b` does not see Cyrillic letters) in which
 * е also matches ё, as Russians often write one for the other.
 */
function words(source: string): RegExp {
  const yo = source.replace(/\[[^\]]*\]|е/g, (m) => (m === 'е' ? '[её]' : m.replace(/е/g, 'её')));
  return new RegExp(`(?<![\\p{L}\\p{N}_])(?:${yo.replace(/~/g, ENDING)})(?![\\p{L}\\p{N}_])`, 'giu');
}

/** Weakness classes and common topics in Russian → the English name the corpus and the class list use. */
const TOPICS: [RegExp, string][] = [
  [words('nosql[\\s-]*(?:инъекци~|внедрени~)'), 'NoSQL injection'],
  [words('(?:ldap)[\\s-]*(?:инъекци~|внедрени~)'), 'LDAP injection'],
  [words('(?:xpath)[\\s-]*(?:инъекци~|внедрени~)'), 'XPath injection'],
  [
    words('(?:sql|скл)[\\s-]*(?:инъекци~|внедрени~)|(?:инъекци~|внедрени~)\\s+(?:sql-кода|sql|sql\\s+кода)'),
    'SQL injection',
  ],
  [
    words(
      '(?:инъекци~|внедрени~)\\s+(?:ос\\s+|os\\s+)?(?:команд~|shell~)|командн~\\s+(?:инъекци~|внедрени~)',
    ),
    'command injection',
  ],
  [words('удаленн~\\s+выполнени~\\s+кода'), 'remote code execution'],
  [words('(?:инъекци~|внедрени~)\\s+кода'), 'code injection'],
  [words('(?:инъекци~|внедрени~)\\s+в\\s+(?:журнал~|лог~)'), 'log injection'],
  [words('межсайтов~\\s+(?:скриптинг~|выполнени~\\s+сценари~|сценари~)'), 'cross-site scripting'],
  [words('подделк~\\s+межсайтов~\\s+запрос~'), 'cross-site request forgery'],
  [
    words('подделк~\\s+(?:серверн~\\s+)?запрос~\\s+на\\s+сторон~\\s+сервер~|подделк~\\s+серверн~\\s+запрос~'),
    'server-side request forgery',
  ],
  [words('обход~\\s+(?:каталог~|директори~|пут~)|выход~\\s+за\\s+пределы\\s+каталог~'), 'path traversal'],
  [words('внешн~\\s+(?:xml[\\s-]*)?сущност~|xml[\\s-]*сущност~'), 'XML external entity'],
  [words('открыт~\\s+(?:перенаправлени~|редирект~)'), 'open redirect'],
  [words('(?:небезопасн~\\s+)?десериализаци~'), 'insecure deserialization'],
  [
    words(
      '(?:(?:жестко\\s+)?(?:заданн~|закодированн~|прописанн~|зашит~)|захардкожен~|вшит~)\\s+(?:в\\s+код~?\\s+)?(?:учетн~\\s+данн~|парол~|секрет~)',
    ),
    'hard-coded credentials',
  ],
  [words('слаб~\\s+(?:криптографи~|шифровани~)'), 'weak cryptography'],
  [words('слаб~\\s+шифр~'), 'weak cipher'],
  [words('слаб~\\s+(?:хеш~|хэш~)'), 'weak hash'],
  [words('целочисленн~\\s+переполнени~|переполнени~\\s+цел~'), 'integer overflow'],
  [words('переполнени~\\s+буфер~'), 'buffer overflow'],
  [words('(?:раскрыти~|утечк~)\\s+(?:информаци~|чувствительн~\\s+данн~|данн~)'), 'information disclosure'],
  [words('обход~\\s+аутентификаци~'), 'authentication bypass'],
  [words('(?:отсутстви~|отсутствующ~)\\s+аутентификаци~'), 'missing authentication'],
  [words('(?:нарушени~|сломанн~)\\s+контрол~\\s+доступ~'), 'broken access control'],
  [words('(?:отсутстви~|отсутствующ~)\\s+авторизаци~'), 'missing authorization'],
  [words('кликджекинг~'), 'clickjacking'],
  [words('форматн~\\s+строк~|строк~\\s+формат~'), 'format string'],
  [words('использовани~\\s+после\\s+освобождени~'), 'use after free'],
  [words('разыменовани~\\s+(?:нулев~\\s+)?указател~'), 'null pointer dereference'],
  [words('состояни~\\s+гонк~|гонк~\\s+данн~'), 'race condition'],
  [words('(?:загрязнени~|засорени~)\\s+прототип~|прототипн~\\s+загрязнени~'), 'prototype pollution'],
  [words('отказ~\\s+в\\s+обслуживании'), 'denial of service'],
  [words('(?:проверк~|валидаци~)\\s+сертификат~'), 'certificate validation'],
  [words('куки|кук~'), 'cookies'],
  [words('инъекци~|внедрени~'), 'injection'],
];

/** Phrases of several words (or whose meaning depends on the next word), before single words. */
const PHRASES: [RegExp, string][] = [
  [words('топ[\\s-]*(\\d{1,3})'), 'top $1'],
  [
    words('больше\\s+всего|наибольш~(?:\\s+(?:числ~|количеств~))?|максимальн~(?:\\s+(?:числ~|количеств~))?'),
    'most',
  ],
  [words('по\\s+сравнению\\s+с(?:о)?|в\\s+сравнении\\s+с(?:о)?|относительно'), 'compared with'],
  [words('не\\s+(?:связан~|относ~)\\s+(?:с|со|к)'), 'unrelated to'],
  [words('(?:связан~|относ~|имеющ~\\s+отношение)\\s+(?:с|со|к)'), 'related to'],
  [words('за\\s+исключением|исключая|кроме'), 'excluding'],
  [words('ложн~\\s+(?:срабатывани~|тревог~|позитив~)|ложноположительн~'), 'false positives'],
  [words('(?:с\\s+)?принят~\\s+риск~|риск~\\s+принят~'), 'risk accepted'],
  [words('(?:все\\s+еще|до\\s+сих\\s+пор|по-прежнему)\\s+(открыт~)'), 'still open'],
  [words('из\\s+(?:них|этих|тех|которых)'), 'of those'],
  [words('в\\s+(?:нем|ней)'), 'in it'],
  [words('(?:какой|какая|каков~)\\s+процент|процент~'), 'percentage of'],
  [words('(?:какая|какова)\\s+доля|дол[яюией]'), 'share of'],
  [words('с\\s+момента|начиная\\s+с(?:о)?'), 'since'],
  // "по" groups before a grouping noun ("по серьёзности", "по отчётам"); otherwise it is "about" ("по SQL-инъекциям").
  [
    words(
      'по(?=\\s+(?:серьезност|критичност|важност|уровн|отчет|скан|файл|cwe|статус|вердикт|формат|заголов|названи|категори|числ|количеств)\\p{L}*)',
    ),
    'by',
  ],
  [words('по'), 'about'],
  [words('а(?=\\s)'), 'and'],
];

/** Single words (stems) → the vocabulary's English words. First match wins. */
const WORDS: [RegExp, string][] = [
  // What is counted.
  [words('находк[аеуио]|находкой'), 'finding'],
  [words('находк~|находок'), 'findings'],
  [words('уязвимость'), 'vulnerability'],
  [words('уязвимост~'), 'vulnerabilities'],
  [words('проблем~|ошибк~|дефект~'), 'issues'],
  [words('отчет|отчета|отчете|отчету|отчетом'), 'report'],
  [words('отчет~'), 'reports'],
  [words('скан|скана|скане|скану|сканом|сканировани~'), 'scan'],
  [words('скан~'), 'scans'],
  [words('файл|файла|файле|файлу|файлом'), 'file'],
  [words('файл~'), 'files'],
  [words('экспорт~|выгрузк~'), 'export'],
  // Severity.
  [words('критическ~|критичн~|критов|крит'), 'critical'],
  [words('высок~'), 'high'],
  [words('средн~|умеренн~'), 'medium'],
  [words('низк~'), 'low'],
  [words('информационн~|информативн~'), 'info'],
  [words('серьезност~|критичност~|важност~|опасност~'), 'severity'],
  [words('уров~'), 'level'],
  // Question words and counting.
  [words('сколько'), 'how many'],
  [words('как~|котор~'), 'which'],
  [words('что|чего'), 'what'],
  [words('числ~|количеств~|кол-во'), 'number of'],
  [words('всего|итого|общ~'), 'total'],
  [words('все|всех|весь|вся|всем|всеми'), 'all'],
  [words('самы~|сам~'), 'most'],
  [words('част~|распространенн~|популярн~|встречающ~'), 'common'],
  [words('топ|лидир~|лидер~|лучш~|худш~'), 'top'],
  [words('распредел~|разбивк~|разбей|распредели|сгруппир~|группировк~'), 'breakdown'],
  [words('обзор~|сводк~|статистик~|резюме'), 'overview'],
  [words('кажд~'), 'each'],
  // Asking to show.
  [
    words('покажи|покажите|показать|выведи|выведите|вывести|отобрази|дай|дайте|открой|открыть|найди|найдите'),
    'show',
  ],
  [words('перечисли|перечислите|список|списком|спиской'), 'list'],
  [words('опиши|опишите|расскажи|расскажите|подробн~|детал~'), 'details'],
  [words('номер~|ид|идентификатор~'), 'id'],
  [words('перв~'), 'first'],
  [words('втор~'), 'second'],
  [words('трет~'), 'third'],
  [words('последн~'), 'last'],
  [words('один|одна|одну|одно'), 'one'],
  [words('два|две'), 'two'],
  [words('три'), 'three'],
  [words('четыре'), 'four'],
  [words('пять'), 'five'],
  [words('десять'), 'ten'],
  // Status and verdict.
  [words('статус~'), 'status'],
  [words('триаж~|сортировк~'), 'triage'],
  [words('вердикт~|ретест~|перепроверк~'), 'verdict'],
  [words('подтвержден~|подтверждён~'), 'confirmed'],
  [words('неисправлен~|неустранен~'), 'unfixed'],
  [words('исправлен~|исправил~|устранен~|устранил~|закрыт~'), 'fixed'],
  [words('неопределенн~|неоднозначн~|неясн~'), 'inconclusive'],
  [words('открыт~'), 'open'],
  [words('архивн~|архивированн~|архив~'), 'archived'],
  [words('формат~'), 'format'],
  [words('заголов~|названи~'), 'titles'],
  // Comparisons of two scans.
  [words('нов~|появил~|добавлен~|добавил~'), 'new'],
  [words('исчез~|пропал~'), 'gone'],
  [words('неизменн~|осталс~|остал~|сохранил~'), 'unchanged'],
  [words('сравни|сравните|сравнить|сравнение|разниц~|отличи~|изменени~'), 'compare'],
  [words('между'), 'between'],
  [words('больше|более'), 'more'],
  [words('меньше|менее'), 'fewer'],
  [words('чем'), 'than'],
  [words('после'), 'after'],
  // Prepositions, pronouns, negation, filler.
  [words('в|во|внутри'), 'in'],
  [words('из|от'), 'from'],
  [words('с|со'), 'with'],
  [words('до'), 'to'],
  [words('к|ко'), 'to'],
  [words('у'), 'of'],
  [words('о|об|обо|про|касающ~|касается|касаются'), 'about'],
  [words('упомина~|упомянут~'), 'mention'],
  [words('содерж~'), 'containing'],
  [words('слов~'), 'word'],
  [words('и'), 'and'],
  [words('или|либо'), 'or'],
  [words('но|однако'), 'but'],
  [words('не|нет'), 'not'],
  [words('без'), 'without'],
  [words('только|лишь'), 'only'],
  [words('также|тоже|еще'), 'also'],
  [words('включая|включительно'), 'including'],
  [words('них|им|ними|они|их'), 'them'],
  [words('эти|этих|этим|этими|те|тех|такие|таких'), 'those'],
  [words('это|этот|этом|эта|этой|этого|эту'), 'this'],
  [words('тот|том|той|того|та|ту'), 'that'],
  [
    words('есть|имеется|имеются|существует|существуют|является|являются|был|была|было|были|будет|быть'),
    'are',
  ],
  [words('имеет|имеют|имеющ~|имеется'), 'have'],
  [words('помечен~|отмечен~|размечен~'), 'marked'],
  [words('найден~|обнаружен~|выявлен~|зарегистрирован~'), 'found'],
  [words('пожалуйста|плиз'), 'please'],
  [words('мне|нам|мы|нас|я|ты|вы|можешь|можете|могу|можно|хочу|хотим|нужно|надо'), 'please'],
  [words('ли|же|бы|ну|вот|там|тут|здесь|сейчас|теперь'), ''],
  [words('за'), 'over'],
  [words('на'), 'on'],
  [words('корпус~|баз~|данны[хем]'), 'corpus'],
  [words('прошл~'), 'last'],
  [
    words(
      'сегодня|вчера|недел~|месяц~|год~|дн~|день|январ~|феврал~|март~|апрел~|ма[йяе]|июн~|июл~|август~|сентябр~|октябр~|ноябр~|декабр~',
    ),
    'week',
  ],
  [
    words(
      'удали~|удалить|удалите|сотри~|очисти~|измени~|изменить|обнови~|добавь~|импортируй~|загрузи~|архивируй~|переименуй~|пометь~|отметь~',
    ),
    'delete',
  ],
];

/** Whether the text has any Cyrillic letter (only such questions are rewritten). */
export const hasCyrillic = (text: string): boolean => /\p{Script=Cyrillic}/u.test(text);

/** A Russian question read in the vocabulary's English words. */
export interface RussianReading {
  text: string;
  /** The operator's own words for `part`, a span of `text` (e.g. a part the planner could not apply). */
  original(part: string): string;
}

/** Marks around a replacement while the tables run: OPEN index MID english CLOSE. */
const OPEN = '\ue001';
const MID = '\ue002';
const CLOSE = '\ue003';
const MARKED = new RegExp(`${OPEN}(\\d+)${MID}([^${CLOSE}]*)${CLOSE}`, 'gu');

/**
 * The question with its Russian words replaced by the planner's English vocabulary (file names,
 * CWE ids, numbers, Latin words and quoted text stay as written), and a way back from a part of it
 * to the operator's wording; undefined for a question without Cyrillic letters.
 */
export function readRussian(question: string): RussianReading | undefined {
  if (!hasCyrillic(question)) return undefined;
  const originals: string[] = [];
  const mark = (original: string, english: string) =>
    `${OPEN}${originals.push(original) - 1}${MID}${english}${CLOSE}`;
  // Quoted text is the operator's exact search: marked with no English, so no table touches it.
  const quotes = new Set<number>();
  let text = question
    .replace(/[«„“]([^»“”\n]{1,200})[»“”]/gu, (_, q: string) => `"${q}"`)
    .replace(/"([^"\n]{1,200})"/gu, (m) => (quotes.add(originals.length), mark(m, '')))
    .replace(/№\s?/gu, '#');
  for (const [re, english] of [...TOPICS, ...PHRASES, ...WORDS]) {
    text = text.replace(re, (m: string, ...args: unknown[]) =>
      mark(
        m,
        english.replace(/\$(\d)/g, (_, k: string) => String(args[Number(k) - 1] ?? '')),
      ),
    );
  }
  // The segments in order: [english, the operator's words] (equal outside replacements).
  const segments: [string, string][] = [];
  let at = 0;
  for (const m of text.matchAll(MARKED)) {
    if (m.index! > at) segments.push([text.slice(at, m.index), text.slice(at, m.index)]);
    const i = Number(m[1]);
    segments.push(
      quotes.has(i)
        ? [originals[i], originals[i]]
        : [m[2], originals[i].replace(MARKED, (_, k: string) => originals[Number(k)])],
    );
    at = m.index! + m[0].length;
  }
  if (at < text.length) segments.push([text.slice(at), text.slice(at)]);
  const raw = segments.map(([en]) => en).join('');
  const english = raw
    .replace(/[ \t]{2,}/g, ' ')
    .replace(/ ([?!.,])/g, '$1')
    .trim();
  return {
    text: english,
    original(part: string): string {
      const found = new RegExp(
        part
          .trim()
          .split(/\s+/)
          .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
          .join('\\s*'),
        'u',
      ).exec(raw);
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

/** The question in the vocabulary's English words (see `readRussian`); unchanged without Cyrillic letters. */
export const normaliseRussian = (question: string): string => readRussian(question)?.text ?? question;

/** A plan whose refused parts are quoted in the operator's own words (`original`), not the vocabulary's. */
export function inOperatorsWords(plan: PlannedQuestion, original: (part: string) => string): PlannedQuestion {
  if (plan.kind !== 'unsupported') return plan;
  return { ...plan, parts: plan.parts.map((p) => ({ ...p, text: original(p.text) })) };
}
