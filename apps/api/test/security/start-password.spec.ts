/**
 * `npm start`'s banner (tools/start): the generated first-admin password is shown, a password from
 * `ADMIN_PASSWORD` never is.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const hintModule = path.resolve(__dirname, '../../../../tools/start/admin-password.mjs');

/** What the banner shows for `env`, with `fileContent` in the generated-password file (or no file). */
function hint(env: Record<string, string>, fileContent?: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cc-start-'));
  try {
    const file = path.join(dir, 'admin-password.txt');
    if (fileContent !== undefined) fs.writeFileSync(file, fileContent);
    const script = `import(${JSON.stringify(hintModule)}).then((m) => process.stdout.write(m.adminPasswordHint(process.env, ${JSON.stringify(file)})))`;
    const { ADMIN_PASSWORD: _ignored, ...rest } = process.env;
    return execFileSync(process.execPath, ['-e', script], { env: { ...rest, ...env }, encoding: 'utf8' });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('npm start banner', () => {
  it('never prints a password that came from ADMIN_PASSWORD', () => {
    const secret = 'from-the-environment-1234';
    expect(hint({ ADMIN_PASSWORD: secret })).not.toContain(secret);
    expect(hint({ ADMIN_PASSWORD: secret }, 'generated-earlier-5678\n')).not.toContain(secret);
    expect(hint({ ADMIN_PASSWORD: secret })).toMatch(/ADMIN_PASSWORD/);
  });

  it('prints the password generated at the first start', () => {
    expect(hint({}, 'generated-earlier-5678\n')).toMatch(/^generated-earlier-5678 /);
    expect(hint({})).not.toMatch(/generated-earlier/);
  });
});
