import { trustProxySetting } from './trust-proxy';

describe('trustProxySetting (TRUST_PROXY)', () => {
  it('reads empty as off, digits as a hop count and a list as trusted addresses', () => {
    expect(trustProxySetting('')).toBe(false);
    expect(trustProxySetting(' 2 ')).toBe(2);
    expect(trustProxySetting('10.0.0.0/8, loopback,::1,fd00::/8')).toEqual([
      '10.0.0.0/8',
      'loopback',
      '::1',
      'fd00::/8',
    ]);
  });

  it.each(['true', 'nginx', '10.0.0.0/33', '::1/129', '10.0.0.1/8/1', '1,,2', '-1'])(
    'refuses %p',
    (value) => {
      expect(() => trustProxySetting(value)).toThrow(/TRUST_PROXY/);
    },
  );
});
