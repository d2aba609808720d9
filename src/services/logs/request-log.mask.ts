import ipaddr from 'ipaddr.js';

/** Query parameters whose values are ids, enums, numbers or dates: kept when the value looks like one. Every other value is masked. */
const SAFE_QUERY_PARAMS = new Set([
  'limit',
  'starting_after',
  'status',
  'include',
  'since',
  'until',
  'mode',
  'flow',
  'tag',
  'event',
  'environment',
  'holding',
  'key',
  'route',
]);

/** Prefixes of the service's own ids (ids.ts), the only underscore-words kept with mixed case. */
const ID_PREFIXES = 'vs|flw|whe|tag|app|doc|bio|rvg|req|mer|mem|evt|chk|del|prv|ntf|aud|act|idv|rlg|fn|fsg';
const PREFIXED_ID = new RegExp(`^(?:${ID_PREFIXES})_[0-9A-Za-z]{1,64}$`);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A literal route word (`verifications`, `rotate_secret`): lower case only, so a base62 secret never passes as one. */
const ROUTE_WORD = /^[a-z][a-z0-9_-]{0,63}$/;
const NUMBER = /^\d{1,12}$/;
/** Enum values and lists of them (`include=applicant,documents`), dates and date-times. */
const ENUM_LIST = /^[a-z][a-z0-9_.]{0,39}(?:,[a-z][a-z0-9_.]{0,39}){0,9}$/;
const DATE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;
/**
 * Secrets and tokens whatever their case: secret and publishable keys (`sk_test_...`), member
 * sessions (`mst_`), client tokens (`vct_`), signing secrets (`whsec_`). Checked first, so a
 * secret that happens to be all lower case is masked all the same.
 */
const SECRET = /^(?:[sprk]k_(?:test|live)_|mst_|vct_|whsec_)/i;

/** Whether a path segment is kept as sent: a route word, one of the service's ids, a UUID or a number. */
const safeSegment = (segment: string): boolean =>
  !SECRET.test(segment) &&
  (ROUTE_WORD.test(segment) || PREFIXED_ID.test(segment) || UUID.test(segment) || NUMBER.test(segment));

/** Whether a safe parameter's value is kept: an id, a number, an enum (list) or a date; never an email or a secret. */
const safeValue = (value: string): boolean =>
  value === '' ||
  (!SECRET.test(value) &&
    (PREFIXED_ID.test(value) ||
      UUID.test(value) ||
      NUMBER.test(value) ||
      ENUM_LIST.test(value) ||
      DATE.test(value) ||
      (value.startsWith('/v1/') && maskPath(value) === value)));

export const MASK = '***';

/** The path with every segment that is not a route word or an id (an email, a secret typed into a URL) replaced by `***`. */
export function maskPath(path: string): string {
  return path
    .split('/')
    .map((segment) => (segment === '' || safeSegment(segment) ? segment : MASK))
    .join('/');
}

/**
 * The route as the request log stores it: ids kept, so a call can be traced; path segments
 * that are not route words or ids, and query values that are not ids, enums, numbers or
 * dates of a known parameter (an email in `starting_after`, `email`, `reference_id`, a
 * secret anywhere), replaced by `***`.
 */
export function maskRoute(path: string, querystring: string): string {
  const maskedPath = maskPath(path);
  if (!querystring) return maskedPath.slice(0, 2048);
  const params = new URLSearchParams(querystring);
  const parts: string[] = [];
  for (const [name, value] of params) {
    const safeName = /^[A-Za-z0-9_.\-[\]]{1,40}$/.test(name) && !SECRET.test(name) && !name.includes('@') ? name : MASK;
    parts.push(`${safeName}=${SAFE_QUERY_PARAMS.has(name) && safeValue(value) ? encodeURIComponent(value) : MASK}`);
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
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress())
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  if (parsed.kind() === 'ipv4') {
    const octets = (parsed as ipaddr.IPv4).octets.slice(0, 3);
    return `${octets.join('.')}.0/24`;
  }
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 3);
  return `${new ipaddr.IPv6([...parts, 0, 0, 0, 0, 0]).toString()}/48`;
}
