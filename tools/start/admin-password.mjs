import fs from 'node:fs';

/**
 * What `npm start` prints after "sign in as <user> /": the password generated at the first start
 * (read from `passwordFile`), never one given in `ADMIN_PASSWORD` (environment values end up in
 * terminal scrollback and CI logs; whoever set it knows it).
 */
export function adminPasswordHint(env, passwordFile) {
  if (env.ADMIN_PASSWORD) return '(the password in ADMIN_PASSWORD)';
  if (fs.existsSync(passwordFile)) {
    return `${fs.readFileSync(passwordFile, 'utf8').trim()}  (generated at the first start; yours if you changed it)`;
  }
  return '(the password you set: the first admin already existed)';
}
