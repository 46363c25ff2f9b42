/**
 * Plural forms for Angular's `I18nPluralPipe`, the word only so the number keeps its own
 * formatting: `{{ n | number }} {{ n | i18nPlural: FINDINGS }}` gives "1 finding", "1,204 findings".
 */
export const FINDINGS = { '=1': 'finding', other: 'findings' } as const;
export const MESSAGES = { '=1': 'message', other: 'messages' } as const;
export const REPORTS = { '=1': 'report', other: 'reports' } as const;
