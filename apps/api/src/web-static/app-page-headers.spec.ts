import fs from 'node:fs';
import path from 'node:path';
import { APP_PAGE_CSP } from './app-page-headers';

const ROOT = path.resolve(__dirname, '../../../..');

/** The other deployments copy the policy by hand; these keep the copies equal to the API's. */
describe('the app page policy is the same in every deployment', () => {
  it('nginx (docker-compose web service) adds it, with DENY, to the pages it serves', () => {
    const conf = fs.readFileSync(path.join(ROOT, 'docker/nginx.conf'), 'utf8');
    const pages = /location \/ \{([^}]*)\}/.exec(conf)?.[1] ?? '';
    expect(pages).toContain(`add_header Content-Security-Policy "${APP_PAGE_CSP}" always;`);
    expect(pages).toContain('add_header X-Frame-Options "DENY" always;');
  });

  it('the Angular dev server sends it, with DENY', () => {
    const project = JSON.parse(fs.readFileSync(path.join(ROOT, 'apps/web/project.json'), 'utf8'));
    expect(project.targets['dev-server'].options.headers).toEqual({
      'Content-Security-Policy': APP_PAGE_CSP,
      'X-Frame-Options': 'DENY',
    });
  });
});
