import data from './weakness-classes.data.json';

/** A weakness class: its name, aliases and CWE ids (from MITRE's CWE list). */
export interface WeaknessClass {
  name: string;
  aliases: string[];
  cwe: number[];
}

/**
 * The weakness classes of `weakness-classes.data.json` (a copy of `shared/corpus/weakness-classes.json`,
 * kept as project data so the table can be edited without touching code).
 */
export const WEAKNESS_CLASSES: readonly WeaknessClass[] = data.classes;

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const matchers = WEAKNESS_CLASSES.map((c) => ({
  cls: c,
  patterns: [c.name, ...c.aliases].map(
    // Whole words, a plural `s` allowed on the last word (IMPORT-RULES, "Weakness classes").
    (phrase) => new RegExp(`(?<![a-z0-9])${escapeRegExp(phrase.toLowerCase())}s?(?![a-z0-9])`),
  ),
}));

/** The classes a text names by name or alias as whole words, plural allowed ("SQL injections", "sqli"). */
export function namedWeaknessClasses(text: string): WeaknessClass[] {
  const lower = text.toLowerCase();
  return matchers.filter((m) => m.patterns.some((p) => p.test(lower))).map((m) => m.cls);
}
