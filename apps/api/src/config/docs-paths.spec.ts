import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** The repository's root, and what git ignores there (run artefacts the docs may name). */
const ROOT = path.resolve(__dirname, '..', '..', '..', '..');
const ignored = (rel: string) => {
  try {
    execFileSync('git', ['check-ignore', '-q', rel], { cwd: ROOT });
    return true;
  } catch {
    return false;
  }
};

/**
 * Repository paths a Markdown file names: `code spans` and link targets whose first segment is a
 * top-level entry of the repository (links inside docs/ may also be relative to it). Placeholders
 * (`<id>`, `*`, `{…}`, `$VAR`, `…`) are not paths.
 */
function namedPaths(file: string): string[] {
  const top = new Set(fs.readdirSync(ROOT));
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const found = new Set<string>();
  for (const m of text.matchAll(/`([^`\s]+)`|\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
    const raw = (m[1] ?? m[2]).replace(/[:,;.]+$/, '');
    if (/^[a-z]+:/.test(raw) || /[<>*{}$…]/.test(raw)) continue;
    if (top.has(raw.split('/')[0]) && (raw.includes('/') || /\.\w+$/.test(raw))) found.add(raw);
    else if (m[2] && file.startsWith('docs/')) found.add(path.join('docs', raw));
  }
  return [...found];
}

describe('paths named in README.md and docs/*.md', () => {
  const files = ['README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).map((f) => `docs/${f}`)].filter(
    (f) => f.endsWith('.md'),
  );
  it.each(files)('%s names only paths that exist', (file) => {
    const missing = namedPaths(file).filter((p) => !fs.existsSync(path.join(ROOT, p)) && !ignored(p));
    expect(missing).toEqual([]);
  });
});
