import { z } from 'zod';
import { validateEnv } from '../config/validate-env';
import { modelUrlAllowlistEnv, ModelUrlAllowlist } from './model-url-allowlist';

const Env = z.looseObject({ MODEL_URL_ALLOWLIST: modelUrlAllowlistEnv('Model servers allowed.') });

describe('ModelUrlAllowlist', () => {
  it('allows every http(s) URL when empty', () => {
    const open = ModelUrlAllowlist.parse('');
    expect(open.open).toBe(true);
    expect(open.allows('http://anything:1234/v1')).toBe(true);
  });

  it('matches origins exactly (scheme, host, port with defaults), hosts on any port, *.domain on subdomains only', () => {
    const list = ModelUrlAllowlist.parse(
      ' https://LLM.internal:8443 , ollama, *.models.example,https://api.example ',
    );
    expect(list.allows('https://llm.internal:8443/v1')).toBe(true);
    expect(list.allows('http://llm.internal:8443/v1')).toBe(false);
    expect(list.allows('https://llm.internal/v1')).toBe(false);
    expect(list.allows('https://api.example:443/v1')).toBe(true);
    expect(list.allows('http://ollama:11434/v1')).toBe(true);
    expect(list.allows('http://ollama.evil.example/v1')).toBe(false);
    expect(list.allows('http://a.b.models.example/v1')).toBe(true);
    expect(list.allows('http://models.example/v1')).toBe(false);
    expect(list.allows('http://evilmodels.example/v1')).toBe(false);
    expect(list.allows('not a url')).toBe(false);
    expect(list.refusal('http://x/v1')).toBe(
      'The model server http://x/v1 is not allowed by MODEL_URL_ALLOWLIST (allowed: https://LLM.internal:8443, ollama, *.models.example, https://api.example). Use an allowed server, or ask whoever runs this deployment to add it.',
    );
  });

  it('stops start-up naming the setting and the bad entry', () => {
    expect(() => validateEnv(Env, { MODEL_URL_ALLOWLIST: 'ollama, https://x.example/v1' })).toThrow(
      /MODEL_URL_ALLOWLIST: 'https:\/\/x.example\/v1' must be an http\(s\) origin without path/,
    );
    expect(() => validateEnv(Env, { MODEL_URL_ALLOWLIST: 'ftp://x' })).toThrow(
      /MODEL_URL_ALLOWLIST: 'ftp:\/\/x'/,
    );
    expect(() => validateEnv(Env, { MODEL_URL_ALLOWLIST: 'bad host!' })).toThrow(/neither an origin/);
    expect(validateEnv(Env, { MODEL_URL_ALLOWLIST: 'ollama,*.corp.example' }).MODEL_URL_ALLOWLIST).toBe(
      'ollama,*.corp.example',
    );
  });
});
