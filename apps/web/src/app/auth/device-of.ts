/** Browsers by a token of their `User-Agent`, most specific first (Edge and Opera also say "Chrome"). */
const BROWSERS: readonly [RegExp, string][] = [
  [/\bEdg(?:e|A|iOS)?\//, 'Edge'],
  [/\bOPR\//, 'Opera'],
  [/\bFirefox\/|\bFxiOS\//, 'Firefox'],
  [/\bChromium\//, 'Chromium'],
  [/\bChrome\/|\bCriOS\//, 'Chrome'],
  [/\bVersion\/[\d.]+.*\bSafari\//, 'Safari'],
  [/^curl\//, 'curl'],
];

/** Systems, most specific first (Android and ChromeOS also say "Linux"; iOS says "like Mac OS X"). */
const SYSTEMS: readonly [RegExp, string][] = [
  [/\bAndroid\b/, 'Android'],
  [/\b(?:iPhone|iPad|iPod)\b/, 'iOS'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bWindows\b/, 'Windows'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bLinux\b/, 'Linux'],
];

const first = (ua: string, table: readonly [RegExp, string][]): string | null =>
  table.find(([pattern]) => pattern.test(ua))?.[1] ?? null;

/**
 * A session's device as a person names it, from its `User-Agent`: the browser and the system
 * (`{ browser: 'Firefox', system: 'Linux' }`), each null when the text does not say.
 */
export function deviceOf(userAgent: string): { browser: string | null; system: string | null } {
  return { browser: first(userAgent, BROWSERS), system: first(userAgent, SYSTEMS) };
}
