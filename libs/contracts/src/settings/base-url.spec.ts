import { normalizeBaseUrl, sameBaseUrl } from './base-url';

describe('normalizeBaseUrl and sameBaseUrl', () => {
  it('spells one server one way: scheme and host case, default port, trailing slashes', () => {
    expect(normalizeBaseUrl(' HTTP://Models.LAN:80/v1/ ')).toBe('http://models.lan/v1');
    expect(normalizeBaseUrl('https://api.example.org:443/v1//')).toBe('https://api.example.org/v1');
    expect(sameBaseUrl('http://127.0.0.1:11434/v1', 'http://127.0.0.1:11434/v1/')).toBe(true);
  });

  it('tells servers apart by host, port and path, and never matches nothing stored', () => {
    expect(sameBaseUrl('http://127.0.0.1:11434/v1', 'http://127.0.0.1:11435/v1')).toBe(false);
    expect(sameBaseUrl('http://models.lan/v1', 'http://evil.example/v1')).toBe(false);
    expect(sameBaseUrl('http://models.lan/v1', 'http://models.lan/proxy/v1')).toBe(false);
    expect(sameBaseUrl('http://models.lan/v1', null)).toBe(false);
    expect(sameBaseUrl(null, null)).toBe(false);
  });
});
