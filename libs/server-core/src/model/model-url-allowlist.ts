import { z } from 'zod';

/** The setting's name, in every refusal (an operator searches the docs for it). */
export const MODEL_URL_ALLOWLIST = 'MODEL_URL_ALLOWLIST';

type Entry =
  { kind: 'origin'; origin: string } | { kind: 'host'; host: string } | { kind: 'suffix'; suffix: string };

const HOST =
  /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$|^\[[0-9a-f:.]+\]$/;

/**
 * `MODEL_URL_ALLOWLIST`: the model servers an admin may use, comma-separated origins
 * (`https://llm.internal:8443`), hosts (`ollama`) or host patterns (`*.models.example`, subdomains
 * only). Empty: every http(s) URL.
 */
export class ModelUrlAllowlist {
  private constructor(
    private readonly entries: Entry[],
    /** The setting as given (trimmed entries), for messages. */
    readonly text: string,
  ) {}

  /** Parses the setting; throws an Error naming the first malformed entry. */
  static parse(raw: string | undefined): ModelUrlAllowlist {
    const items = (raw ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const entries = items.map((item): Entry => {
      const lower = item.toLowerCase();
      if (lower.includes('://')) {
        const url = URL.parse(lower);
        if (!url) throw new Error(`'${item}' is not a valid origin (e.g. https://llm.internal:8443)`);
        if (
          (url.protocol !== 'http:' && url.protocol !== 'https:') ||
          url.pathname !== '/' ||
          url.search ||
          url.username
        ) {
          throw new Error(
            `'${item}' must be an http(s) origin without path, query or credentials (e.g. https://llm.internal:8443)`,
          );
        }
        return { kind: 'origin', origin: url.origin };
      }
      if (lower.startsWith('*.') && HOST.test(lower.slice(2)))
        return { kind: 'suffix', suffix: lower.slice(1) };
      if (HOST.test(lower)) return { kind: 'host', host: lower };
      throw new Error(
        `'${item}' is neither an origin (https://host:port), a host (ollama) nor a host pattern (*.example.com)`,
      );
    });
    return new ModelUrlAllowlist(entries, items.join(', '));
  }

  /** True when nothing is restricted (the setting is empty). */
  get open(): boolean {
    return this.entries.length === 0;
  }

  /** Whether `baseUrl` may be used; a string that is not an http(s) URL never is (unless open). */
  allows(baseUrl: string): boolean {
    if (this.open) return true;
    const url = URL.parse(baseUrl);
    if (url?.protocol !== 'http:' && url?.protocol !== 'https:') return false;
    const host = url.hostname.toLowerCase();
    return this.entries.some((e) =>
      e.kind === 'origin'
        ? e.origin === url.origin
        : e.kind === 'host'
          ? e.host === host
          : host.endsWith(e.suffix),
    );
  }

  /** Why `baseUrl` is refused, naming the setting and what it allows. */
  refusal(baseUrl: string): string {
    return `The model server ${baseUrl} is not allowed by ${MODEL_URL_ALLOWLIST} (allowed: ${this.text}). Use an allowed server, or ask whoever runs this deployment to add it.`;
  }
}

/** The `MODEL_URL_ALLOWLIST` variable of an env schema: `ModelUrlAllowlist.parse` must accept it. */
export const modelUrlAllowlistEnv = (description: string) =>
  z
    .string()
    .superRefine((value, ctx) => {
      try {
        ModelUrlAllowlist.parse(value);
      } catch (e) {
        ctx.addIssue({ code: 'custom', message: (e as Error).message });
      }
    })
    .default('')
    .describe(description);
