import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { ModelUrlAllowlist } from '../model/model-url-allowlist';

/** The setting's name, in every refusal (an operator searches the docs for it). */
export const WEBHOOK_URL_ALLOWLIST = 'WEBHOOK_URL_ALLOWLIST';

/** A webhook URL that may not be used; the message says why and what to do. */
export class WebhookTargetRefusedError extends Error {
  override name = 'WebhookTargetRefusedError';
}

/** Loopback, private, link-local, carrier-grade NAT, multicast and reserved ranges. */
const NON_PUBLIC = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const) {
  NON_PUBLIC.addSubnet(net, prefix, 'ipv4');
  // The same ranges embedded in IPv6: NAT64 (64:ff9b::/96, DNS64 networks) and 6to4 (2002::/16).
  const [a, b, c, d] = net.split('.').map(Number) as [number, number, number, number];
  const [hi, lo] = [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
  NON_PUBLIC.addSubnet(`64:ff9b::${hi}:${lo}`, 96 + prefix, 'ipv6');
  NON_PUBLIC.addSubnet(`2002:${hi}:${lo}::`, 16 + prefix, 'ipv6');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  NON_PUBLIC.addSubnet(net, prefix, 'ipv6');

/** Whether `address` (IPv4, IPv6 or IPv4-mapped IPv6) is not a public internet address. */
export function isNonPublicAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return NON_PUBLIC.check(mapped[1]!, 'ipv4');
  // The hex form URL parsing gives: `::ffff:7f00:1` is 127.0.0.1.
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (hex) {
    const [hi, lo] = [parseInt(hex[1]!, 16), parseInt(hex[2]!, 16)];
    return NON_PUBLIC.check(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`, 'ipv4');
  }
  const family = isIP(address);
  if (family === 0) return true;
  return NON_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

type ResolveAll = (host: string) => Promise<LookupAddress[]>;

const resolveAll: ResolveAll = (host) => lookup(host, { all: true });

/**
 * Where webhooks may go: `WEBHOOK_URL_ALLOWLIST` entries (as for model URLs); otherwise https to
 * public addresses only. Checked on registration and on every send against the address actually
 * connected to, so DNS rebinding is refused.
 */
export class WebhookTargets {
  readonly allowlist: ModelUrlAllowlist;

  constructor(
    allowlist: string,
    private readonly resolve: ResolveAll = resolveAll,
  ) {
    this.allowlist = ModelUrlAllowlist.parse(allowlist);
  }

  /** The URL, when its form, scheme and the allowlist accept it; else `WebhookTargetRefusedError`. */
  checkUrl(raw: string): URL {
    const url = URL.parse(raw);
    if (!url)
      throw new WebhookTargetRefusedError(
        `${raw} is not a URL: give one like https://hooks.example.org/corpus.`,
      );
    if (url.username || url.password)
      throw new WebhookTargetRefusedError('The webhook URL must not contain a user name or password.');
    if (!this.allowlist.allows(url.href))
      throw new WebhookTargetRefusedError(
        `The host ${url.host} is not allowed by ${WEBHOOK_URL_ALLOWLIST} (allowed: ${this.allowlist.text}). Use an allowed host, or ask whoever runs this deployment to add it.`,
      );
    if (url.protocol !== 'https:' && !this.named(url))
      throw new WebhookTargetRefusedError(
        `The webhook URL must use https:// (plain http only for a host ${WEBHOOK_URL_ALLOWLIST} names).`,
      );
    return url;
  }

  /** `checkUrl`, then the host's addresses: each must be public unless the allowlist names the URL. */
  async check(raw: string): Promise<URL> {
    const url = this.checkUrl(raw);
    const host = hostOf(url);
    let addresses: string[];
    try {
      addresses = isIP(host) ? [host] : (await this.resolve(host)).map((a) => a.address);
    } catch (e) {
      throw new WebhookTargetRefusedError(
        `The host ${host} could not be resolved (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): check the URL.`,
      );
    }
    for (const address of addresses) this.checkAddress(url, address);
    return url;
  }

  /**
   * A `lookup` for `http.request` that connects only to addresses `url` may reach, so the address
   * checked is the address used. An IP literal is not looked up: `check` covers it before sending.
   */
  lookupFor(url: URL): LookupFunction {
    return (hostname, options, callback) => {
      this.resolve(hostname).then(
        (addresses) => {
          try {
            for (const a of addresses) this.checkAddress(url, a.address);
          } catch (e) {
            callback(e as NodeJS.ErrnoException, '', 0);
            return;
          }
          if (options.all) callback(null, addresses);
          else callback(null, addresses[0]!.address, addresses[0]!.family);
        },
        (e: NodeJS.ErrnoException) => callback(e, '', 0),
      );
    };
  }

  private checkAddress(url: URL, address: string): void {
    if (isNonPublicAddress(address) && !this.named(url))
      throw new WebhookTargetRefusedError(
        `The host ${hostOf(url)} resolves to ${address}, a private or local address: webhooks go to public hosts only, unless ${WEBHOOK_URL_ALLOWLIST} names the host.`,
      );
  }

  /** Whether an entry of a non-empty allowlist matches `url` (an explicit choice of an admin). */
  private named(url: URL): boolean {
    return !this.allowlist.open && this.allowlist.allows(url.href);
  }
}

/** The host without IPv6 brackets. */
const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');
