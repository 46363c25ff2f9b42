import { describe, expect, it } from 'vitest';
import source from '../../locale/messages.json';
import russian from '../../locale/messages.ru.json';

// The extracted English source (`nx run web:extract-i18n`) against the Russian translations: a new
// string cannot ship untranslated, and a translation cannot drop or invent a placeholder.

const sourceMessages: Record<string, string> = source.translations;
const russianMessages: Record<string, string> = russian.translations;

/** Placeholders (`{$INTERPOLATION}`, `{$START_TAG_STRONG}`, `{$name}`), ICU variables and nested ICU placeholders. */
function placeholdersOf(message: string): string[] {
  const names = new Set<string>();
  for (const m of message.matchAll(/\{\$?([A-Za-z][A-Za-z0-9_]*)\}/g)) names.add(m[1]!);
  for (const m of message.matchAll(/\{\s*([A-Za-z][A-Za-z0-9_]*)\s*,\s*(plural|select)\s*,/g))
    names.add(`${m[1]}:${m[2]}`);
  return [...names].sort();
}

/** The plural categories a message's ICU plurals use. */
function pluralCategoriesOf(message: string): string[] {
  if (!/,\s*plural\s*,/.test(message)) return [];
  return [
    ...new Set(
      [...message.matchAll(/(?:^|[\s}])(=\d+|zero|one|two|few|many|other)\s*\{/g)].map((m) => m[1]!),
    ),
  ].sort();
}

describe('Russian translations', () => {
  it('translate every extracted message', () => {
    const missing = Object.keys(sourceMessages).filter((id) => !russianMessages[id]?.trim());
    expect(
      missing,
      `no Russian for: ${missing.join(', ')} (add them to apps/web/src/locale/messages.ru.json)`,
    ).toEqual([]);
  });

  it('keep the placeholders of the source, no more and no fewer', () => {
    const mismatched = Object.keys(sourceMessages)
      .filter((id) => russianMessages[id] !== undefined)
      .filter(
        (id) => placeholdersOf(sourceMessages[id]!).join() !== placeholdersOf(russianMessages[id]!).join(),
      )
      .map(
        (id) =>
          `${id}: ${placeholdersOf(sourceMessages[id]!).join(' ')} ≠ ${placeholdersOf(russianMessages[id]!).join(' ')}`,
      );
    expect(mismatched).toEqual([]);
  });

  it('give every plural the Russian forms one, few and many', () => {
    const lacking = Object.entries(russianMessages)
      .filter(([, text]) => pluralCategoriesOf(text).length > 0)
      .filter(
        ([, text]) => !['one', 'few', 'many', 'other'].every((c) => pluralCategoriesOf(text).includes(c)),
      )
      .map(([id]) => id);
    expect(lacking).toEqual([]);
  });

  it('hold no translation of a message that no longer exists', () => {
    const stale = Object.keys(russianMessages).filter((id) => !(id in sourceMessages));
    expect(stale).toEqual([]);
  });

  it('catch a missing placeholder (the check itself)', () => {
    expect(placeholdersOf('Page {$INTERPOLATION} of {$INTERPOLATION_1}')).toEqual([
      'INTERPOLATION',
      'INTERPOLATION_1',
    ]);
    expect(
      placeholdersOf('{VAR_PLURAL, plural, one {{INTERPOLATION} finding} other {{INTERPOLATION} findings}}'),
    ).toEqual(['INTERPOLATION', 'VAR_PLURAL:plural']);
    expect(pluralCategoriesOf('{VAR_PLURAL, plural, one {a} few {b} many {c} other {d}}')).toEqual([
      'few',
      'many',
      'one',
      'other',
    ]);
  });
});
