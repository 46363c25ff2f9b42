import net from 'node:net';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { z } from 'zod';

/** Names Express (proxy-addr) accepts for address ranges. */
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** Whether `entry` is an IP address, `address/prefix` (CIDR) or one of Express's named ranges. */
function isProxyEntry(entry: string): boolean {
  if (NAMED_RANGES.has(entry)) return true;
  const [address, prefix, ...rest] = entry.split('/');
  const family = net.isIP(address ?? '');
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/** Express's `trust proxy` for `TRUST_PROXY`: false, a hop count, or trusted addresses; throws otherwise. */
export function trustProxySetting(value: string): false | number | string[] {
  const trimmed = value.trim();
  if (trimmed === '') return false;
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const entries = trimmed.split(',').map((e) => e.trim());
  const bad = entries.filter((e) => !isProxyEntry(e));
  if (bad.length > 0) throw new Error(`TRUST_PROXY: not a hop count nor addresses/CIDRs: ${bad.join(', ')}`);
  return entries;
}

/** The `TRUST_PROXY` variable of an env schema (see `trustProxySetting`). */
export const trustProxyEnv = z
  .string()
  .refine(
    (value) => {
      try {
        trustProxySetting(value);
        return true;
      } catch {
        return false; // the message below names the accepted forms
      }
    },
    {
      error:
        'must be empty, a hop count (e.g. 1) or a comma-separated list of proxy IPs/CIDRs (e.g. 10.0.0.0/8,loopback)',
    },
  )
  .default('');

/** Sets Express's `trust proxy` from `TRUST_PROXY`, so `req.ip` is the client behind those proxies. */
export function applyTrustProxy(app: NestExpressApplication, trustProxy: string): void {
  app.set('trust proxy', trustProxySetting(trustProxy));
}
