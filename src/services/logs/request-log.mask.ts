import ipaddr from 'ipaddr.js';

/** Query parameters whose values cannot carry identity: kept as sent. Every other value is masked. */
const SAFE_QUERY_PARAMS = new Set(['limit', 'starting_after', 'status', 'include', 'since', 'mode', 'flow', 'tag', 'event', 'environment', 'holding']);

/**
 * Path segments kept as sent: literal route words (`verifications`, `rotate_secret`), prefixed
 * ids (`vs_...`), UUIDs and numbers. Anything else (an email typed into a path) is masked.
 */
const SAFE_SEGMENT = /^(?:[a-z][a-z0-9_-]*|[a-z]{2,4}_[0-9A-Za-z]{1,64}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\d{1,12})$/i;

export const MASK = '***';

/**
 * The route as the request log stores it: ids kept, so a call can be traced; the values of
 * query parameters that could carry identity (`email`, `reference_id`, anything unknown)
 * replaced by `***`, and so are path segments that are not route words or ids.
 */
export function maskRoute(path: string, querystring: string): string {
  const maskedPath = path
    .split('/')
    .map((segment) => (segment === '' || SAFE_SEGMENT.test(segment) ? segment : MASK))
    .join('/');
  if (!querystring) return maskedPath.slice(0, 2048);
  const params = new URLSearchParams(querystring);
  const parts: string[] = [];
  for (const [name, value] of params) {
    const safeName = /^[A-Za-z0-9_.\-[\]]{1,40}$/.test(name) ? name : MASK;
    parts.push(`${safeName}=${SAFE_QUERY_PARAMS.has(name) ? encodeURIComponent(value) : MASK}`);
  }
  return `${maskedPath}?${parts.join('&')}`.slice(0, 2048);
}

/**
 * The client address truncated before it is stored (decisions.md): IPv4 to its /24, IPv6 to
 * its /48; an IPv4-mapped IPv6 address counts as IPv4. Null when there is none or it is unreadable.
 */
export function truncateIp(address: string | undefined | null): string | null {
  if (!address) return null;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address.replace(/%.*$/, ''));
  } catch {
    return null;
  }
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  if (parsed.kind() === 'ipv4') {
    const octets = (parsed as ipaddr.IPv4).octets.slice(0, 3);
    return `${octets.join('.')}.0/24`;
  }
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 3);
  return `${new ipaddr.IPv6([...parts, 0, 0, 0, 0, 0]).toString()}/48`;
}
