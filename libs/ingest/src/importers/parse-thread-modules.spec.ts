import { spawnSync } from 'node:child_process';
import path from 'node:path';

const REGISTER = path.resolve(__dirname, '../../../../tools/build/register.cjs');

/**
 * Every parse thread loads `parse-report` and what it imports before it parses: TypeORM there
 * doubled the thread's start (a 1 MB file's import, bench scenario 8). Checked in a fresh process.
 */
describe('the parse thread’s modules', () => {
  it('do not include TypeORM', () => {
    const script = `require(${JSON.stringify(path.join(__dirname, 'parse-report.ts'))});
const packages = new Set(Object.keys(require.cache).map((k) => /node_modules\\/((@[^/]+\\/)?[^/]+)/.exec(k)?.[1]));
console.log(JSON.stringify([...packages].filter(Boolean)));`;
    const run = spawnSync(process.execPath, ['-r', REGISTER, '-e', script], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    const packages: string[] = JSON.parse(run.stdout);
    expect(packages).toContain('fast-xml-parser'); // the check sees the parsers' packages
    expect(packages).not.toContain('typeorm');
  });
});
