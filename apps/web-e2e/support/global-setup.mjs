/**
 * Playwright global setup: builds the web app, loads the sample corpus into a fresh database and
 * starts the API and one agent-worker (support/stack.mjs). The specs' worker process finds the
 * stack through the `CC_E2E_*` variables set here (Playwright passes the setup's environment on).
 * The returned function is the global teardown: it stops everything and drops the database and
 * the Redis keys, also after a failed or interrupted run.
 */
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { Stack } from './stack.mjs';
import { artifactsDir, chromiumPath, corpusFiles, root, sharedDir } from './paths.mjs';

export default async function globalSetup() {
  fs.rmSync(artifactsDir, { recursive: true, force: true });
  fs.mkdirSync(artifactsDir, { recursive: true });
  if (!fs.existsSync(chromiumPath))
    throw new Error(
      `No Chromium at ${chromiumPath}: apt-get install -y chromium (never a downloaded browser).`,
    );
  const stack = new Stack({ root, sharedDir, artifactsDir });
  // Last resort when the runner is killed: no child process outlives it. (Playwright's own SIGINT
  // handling runs the teardown below.)
  const killNow = () => stack.killNow();
  const terminate = () => void stack.stop().finally(() => process.exit(143));
  process.on('exit', killNow);
  process.on('SIGTERM', terminate);
  try {
    const webDist = stack.buildWeb();
    stack.importCorpus(corpusFiles().map((f) => path.join(sharedDir, 'corpus', f)));
    await stack.start({ webDist });
  } catch (e) {
    await stack.stop();
    throw e;
  }
  process.env.CC_E2E_BASE_URL = stack.baseUrl;
  process.env.CC_E2E_ADMIN_USER = stack.adminUser;
  process.env.CC_E2E_ADMIN_PASSWORD = stack.adminPassword;
  return async () => {
    await stack.stop();
    process.off('exit', killNow);
    process.off('SIGTERM', terminate);
  };
}
