import dns from 'node:dns';
import net from 'node:net';

/**
 * The SSRF guard for webhook URLs: refuses targets in private, loopback, link-local, CGNAT,
 * metadata, documentation, multicast and reserved ranges, checked on every address a name
 * resolves to, at creation and again at connect time (DNS rebinding).
 */
const blocked = new net.BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
  // Teredo (tunnels to an obfuscated IPv4) and local-use NAT64 (RFC 8215): never a public receiver.
  ['2001::', 32],
  ['64:ff9b:1::', 48],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

/** Expands an IPv6 literal to its 8 groups (handles `::` and a trailing dotted IPv4). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase().split('%')[0]!;
  const dotted = text.match(/(\d+\.\d+\.\d+\.\d+)$/);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    text = text.slice(0, -dotted[1]!.length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : Array(8 - left.length - right.length).fill('0');
  return [...left, ...fill, ...right].map((g) => parseInt(g || '0', 16));
}

const v4 = (hi: number, lo: number): string => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/** The IPv4 address an IPv6 one carries (mapped, compatible, NAT64, 6to4), if any. */
function embeddedIpv4(address: string): string | undefined {
  const g = ipv6Groups(address);
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && g[5] === 0xffff) return v4(g[6]!, g[7]!); // ::ffff:a.b.c.d
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return v4(g[6]!, g[7]!); // ::ffff:0:a.b.c.d (IPv4-translated, RFC 2765)
  if (zeros(0, 6)) return v4(g[6]!, g[7]!); // ::a.b.c.d (deprecated compatible form)
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return v4(g[6]!, g[7]!); // NAT64
  if (g[0] === 0x2002) return v4(g[1]!, g[2]!); // 6to4
  return undefined;
}

/** Whether an IP address (v4 or v6 literal) is one a webhook must never reach. */
export function isForbiddenAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = net.isIP(bare);
  if (family === 4) return blocked.check(bare, 'ipv4');
  if (family !== 6) return true;
  const inner = embeddedIpv4(bare);
  if (inner !== undefined && (inner === '0.0.0.0' || blocked.check(inner, 'ipv4'))) return true;
  return blocked.check(bare.split('%')[0]!, 'ipv6');
}

export type UrlProblem = { reason: string };

/**
 * Shape rules of a webhook URL: http(s), a host, no credentials. The WHATWG parser already
 * turns decimal, octal and hex IPv4 forms (2130706433, 0x7f000001, 0177.0.0.1) into dotted quads.
 */
export function parseWebhookUrl(raw: string): URL | UrlProblem {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { reason: 'url must be an absolute http(s) URL.' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { reason: 'url must use http or https.' };
  if (url.username || url.password) return { reason: 'url must not carry credentials.' };
  if (!url.hostname) return { reason: 'url must name a host.' };
  return url;
}

const hostOf = (url: URL): string => url.hostname.replace(/^\[|\]$/g, '');

/**
 * Resolves the URL's host (every address) and refuses it when any address is forbidden.
 * Returns a reason, or undefined when the target may be called.
 */
export async function checkWebhookTarget(url: URL, allowPrivate: boolean): Promise<string | undefined> {
  if (allowPrivate) return undefined;
  const host = hostOf(url);
  if (net.isIP(host))
    return isForbiddenAddress(host) ? 'url points at a private, loopback, link-local or reserved address.' : undefined;
  let addresses: dns.LookupAddress[];
  try {
    addresses = await dns.promises.lookup(host, { all: true, verbatim: true });
  } catch {
    return `url host ${host} could not be resolved.`;
  }
  if (addresses.length === 0) return `url host ${host} could not be resolved.`;
  if (addresses.some((a) => isForbiddenAddress(a.address)))
    return 'url resolves to a private, loopback, link-local or reserved address.';
  return undefined;
}

export class ForbiddenAddressError extends Error {
  readonly code = 'EFORBIDDENADDRESS';
}

/**
 * A `lookup` for http.request that validates every resolved address before the socket
 * connects, so a name that re-resolves to a private address after creation is refused.
 */
export function guardedLookup(allowPrivate: boolean): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      const list = addresses as unknown as dns.LookupAddress[];
      if (error) return callback(error, '', 4);
      if (!list || list.length === 0)
        return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '', 4);
      if (!allowPrivate && list.some((a) => isForbiddenAddress(a.address))) {
        return callback(new ForbiddenAddressError(`${hostname} resolves to a forbidden address`), '', 4);
      }
      if ((options as dns.LookupOptions).all)
        return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}
