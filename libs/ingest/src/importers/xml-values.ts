/** Reading values out of fast-xml-parser's output (attributes prefixed `@`, text as `#text`). */

/** A child that the parser gives as one element or a list (or '' for an empty element), as a list. */
export function xmlList(value: unknown): unknown[] {
  if (value === undefined || value === null || value === '') return [];
  return Array.isArray(value) ? value : [value];
}

/**
 * The text of an element: the string itself, or `#text` of an element that also has attributes
 * (`<host ip="…">http://bwa</host>`); '' when absent or when the element only has children.
 */
export function xmlText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const text = (value as Record<string, unknown>)['#text'];
    return typeof text === 'string' || typeof text === 'number' ? String(text) : '';
  }
  return '';
}
