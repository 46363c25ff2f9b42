import type { LookupAddress } from 'node:dns';
import { isNonPublicAddress, WebhookTargetRefusedError, WebhookTargets } from './webhook-target';

/** A resolver answering from a table, so a name can "re-resolve" to another address between calls. */
const resolver =
  (table: Record<string, string[]>) =>
  async (host: string): Promise<LookupAddress[]> => {
    const addresses = table[host];
    if (!addresses) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

const refusal = async (targets: WebhookTargets, url: string) => {
  try {
    await targets.check(url);
  } catch (e) {
    expect(e).toBeInstanceOf(WebhookTargetRefusedError);
    return (e as Error).message;
  }
  throw new Error(`${url} was accepted`);
};

/** What `lookupFor(url)` hands to the socket for `host`: the address, or the refusal's message. */
const connectTo = (targets: WebhookTargets, url: string, host: string) =>
  new Promise<string>((resolve) =>
    targets.lookupFor(new URL(url))(host, { all: false }, (err, address) =>
      resolve(err ? `refused: ${err.message}` : (address as string)),
    ),
  );

describe('isNonPublicAddress', () => {
  it.each([
    '127.0.0.1',
    '10.2.3.4',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    '::',
    'fd00::1',
    'fe80::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:7f00:1',
    // A private IPv4 address behind NAT64 (DNS64 networks) or 6to4 is still that address.
    '64:ff9b::a9fe:a9fe',
    '64:ff9b::7f00:1',
    '2002:a00:1::1',
    '2002:c0a8:101::',
  ])('%s is not public', (address) => expect(isNonPublicAddress(address)).toBe(true));

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '::ffff:808:808',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('%s is public', (address) => expect(isNonPublicAddress(address)).toBe(false));
});

describe('WebhookTargets', () => {
  const dns = resolver({
    'hooks.example.org': ['93.184.216.34'],
    'inside.example.org': ['10.0.0.7'],
    'mixed.example.org': ['93.184.216.34', '192.168.0.2'],
    'hooks.internal': ['10.0.0.9'],
  });

  it('with an empty list takes public https hosts and refuses private ones, by literal or by name', async () => {
    const open = new WebhookTargets('', dns);
    await expect(open.check('https://hooks.example.org/x')).resolves.toBeInstanceOf(URL);
    expect(await refusal(open, 'https://10.1.1.1/x')).toMatch(/10\.1\.1\.1, a private or local address/);
    expect(await refusal(open, 'https://[::1]/x')).toMatch(/private or local/);
    expect(await refusal(open, 'https://[::ffff:127.0.0.1]/x')).toMatch(/private or local/);
    expect(await refusal(open, 'https://inside.example.org/x')).toMatch(/resolves to 10\.0\.0\.7/);
    expect(await refusal(open, 'https://mixed.example.org/x')).toMatch(/resolves to 192\.168\.0\.2/);
    expect(await refusal(open, 'http://hooks.example.org/x')).toMatch(/must use https/);
    expect(await refusal(open, 'https://nowhere.example.org/x')).toMatch(
      /could not be resolved \(ENOTFOUND\)/,
    );
    expect(await refusal(open, 'https://user:pw@hooks.example.org/x')).toMatch(/user name or password/);
    expect(await refusal(open, 'not a url')).toMatch(/is not a URL/);
  });

  it('with a list takes only what it names, and a named host may be internal and plain http', async () => {
    const listed = new WebhookTargets('hooks.internal, https://hooks.example.org', dns);
    await expect(listed.check('http://hooks.internal:8080/x')).resolves.toBeInstanceOf(URL);
    await expect(listed.check('https://hooks.example.org/x')).resolves.toBeInstanceOf(URL);
    expect(await refusal(listed, 'https://inside.example.org/x')).toMatch(
      /not allowed by WEBHOOK_URL_ALLOWLIST \(allowed: hooks\.internal, https:\/\/hooks\.example\.org\)/,
    );
  });

  it('checks the address it connects to, so a name that re-resolves to a private address is refused', async () => {
    const table: Record<string, string[]> = { 'hooks.example.org': ['93.184.216.34'] };
    const targets = new WebhookTargets('', resolver(table));
    const url = 'https://hooks.example.org/x';
    await targets.check(url);
    expect(await connectTo(targets, url, 'hooks.example.org')).toBe('93.184.216.34');
    table['hooks.example.org'] = ['127.0.0.1'];
    expect(await connectTo(targets, url, 'hooks.example.org')).toMatch(/^refused: .*127\.0\.0\.1, a private/);
  });
});
