/**
 * ICU-style messages, the subset the answers use: `{name}` (a number in the language's digits),
 * `{name, number}` (grouped digits), `{name, plural, one {# finding} other {# findings}}` (`#` is
 * the number; CLDR plural categories, a Russian fraction taking `few` as the grammar wants) and
 * `{name, select, cwe {…} other {…}}` (`none` matches an empty, false or missing value, `yes` true).
 */
export type MessageParams = Record<string, string | number | boolean | null | undefined>;

export class MessageFormat {
  private readonly rules: Intl.PluralRules;
  private readonly grouped: Intl.NumberFormat;

  constructor(
    locale: string,
    private readonly messages: Record<string, string>,
    private readonly num: (n: number) => string,
  ) {
    this.rules = new Intl.PluralRules(locale);
    this.grouped = new Intl.NumberFormat(locale);
  }

  has = (key: string): boolean => Object.hasOwn(this.messages, key);

  /** The message `key` with `params` filled in (they are inserted as given: escape before). */
  format = (key: string, params: MessageParams = {}): string => {
    if (!this.has(key)) throw new Error(`answer-messages.json: no message "${key}"`);
    return this.fill(this.messages[key], params);
  };

  private fill(template: string, params: MessageParams, hash?: string): string {
    let out = '';
    for (let i = 0; i < template.length; i++) {
      if (template[i] !== '{') out += template[i] === '#' && hash !== undefined ? hash : template[i];
      else {
        const end = closing(template, i);
        out += this.argument(template.slice(i + 1, end), params);
        i = end;
      }
    }
    return out;
  }

  private argument(body: string, params: MessageParams): string {
    const [name, type] = body.split(',', 2).map((s) => s.trim());
    const value = params[name];
    if (!type) return typeof value === 'number' ? this.num(value) : String(value ?? '');
    if (type === 'number') return this.grouped.format(Number(value));
    const branches = new Map<string, string>();
    const rest = body.slice(body.indexOf(',', body.indexOf(',') + 1) + 1);
    for (let i = 0, open = rest.indexOf('{'); open >= 0; open = rest.indexOf('{', i)) {
      const end = closing(rest, open);
      branches.set(rest.slice(i, open).trim(), rest.slice(open + 1, end));
      i = end + 1;
    }
    if (type === 'plural') {
      const n = Number(value);
      const category = this.rules.select(n);
      // A Russian fraction is "other", but the grammar wants the "few" form.
      const branch = branches.get(category) ?? (category === 'other' ? branches.get('few') : undefined);
      return this.fill(branch ?? branches.get('other') ?? '', params, this.num(n));
    }
    const key =
      value === '' || value === false || value == null ? 'none' : value === true ? 'yes' : String(value);
    return this.fill(branches.get(key) ?? branches.get('other') ?? '', params);
  }
}

/** The index of the `}` closing the `{` at `open`. */
function closing(s: string, open: number): number {
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    if (s[i] === '{') depth++;
    else if (s[i] === '}' && --depth === 0) return i;
  }
  throw new Error(`answer-messages.json: unclosed "{" in "${s}"`);
}
