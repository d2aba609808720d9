import http from 'node:http';
import type { Measurement } from './load.js';
import type { BenchContext, Comparison, Scenario } from './scenarios.js';

/**
 * Issue 27 item 5: eight senders posting abusive GraphQL documents (1 MB of fields, fragment
 * cycles, an unknown fragment, 330k duplicate fields, too many tokens) must not freeze the event
 * loop: /healthz keeps at least half its throughput, and its p99 within 2x, against the same
 * eight senders posting an ordinary document at the same rate.
 */
const SENDERS = 8;
const EVERY_MS = 400;

const ABUSIVE = [
  `{ viewer { ${'environments '.repeat(80_000)} } }`,
  'query { viewer { ...A } } fragment A on Viewer { ...B } fragment B on Viewer { ...A }',
  'query { viewer { ...A } } fragment A on Viewer { environments ...A }',
  'query { viewer { ...Nowhere } }',
  `{ viewer { ${'e '.repeat(330_000)}} }`,
  `{ viewer { ${'e '.repeat(2_100)}} }`,
].map((query) => Buffer.from(JSON.stringify({ query })));
const ORDINARY = [Buffer.from(JSON.stringify({ query: '{ viewer { environments } }' }))];

function post(url: string, body: Buffer, token: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.request(
      `${url}/graphql`,
      {
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': String(body.length),
          authorization: `Bearer ${token}`,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', () => resolve(0));
    req.end(body);
  });
}

/** /healthz measured while the senders post `bodies`; every sender's answer must be `expected`. */
async function healthzWhileSending(ctx: BenchContext, bodies: Buffer[], expected: number): Promise<Measurement> {
  let stop = false;
  const statuses = new Map<number, number>();
  const sender = async (n: number) => {
    for (let i = n; !stop; i++) {
      const pause = new Promise((r) => setTimeout(r, EVERY_MS));
      const status = await post(ctx.serviceUrl, bodies[i % bodies.length]!, ctx.memberToken);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      await pause;
    }
  };
  const senders = Array.from({ length: SENDERS }, (_, n) => sender(n));
  try {
    const measured = await ctx.measure({ url: `${ctx.serviceUrl}/healthz` });
    const sent = [...statuses.values()].reduce((a, b) => a + b, 0);
    if (statuses.size !== 1 || !statuses.has(expected))
      throw new Error(
        `GraphQL senders expected ${expected} every time, got ${JSON.stringify(Object.fromEntries(statuses))}`,
      );
    return { ...measured, details: { ...measured.details, documents_sent: sent, sender_status: expected } };
  } finally {
    stop = true;
    await Promise.all(senders);
  }
}

export const graphqlAbuseScenarios: Scenario[] = [
  {
    name: 'healthz-graphql-ordinary',
    label: `service GET /healthz, ${SENDERS} senders of an ordinary GraphQL document every ${EVERY_MS} ms`,
    run: (ctx) => healthzWhileSending(ctx, ORDINARY, 200),
  },
  {
    name: 'healthz-graphql-abusive',
    label: `service GET /healthz, ${SENDERS} senders of abusive GraphQL documents every ${EVERY_MS} ms`,
    run: (ctx) => healthzWhileSending(ctx, ABUSIVE, 400),
  },
];

export const graphqlAbuseComparisons: Comparison[] = [
  // Abusive documents are refused before they cost: /healthz keeps at least half its throughput (its p99 is in the table beside it).
  {
    name: 'healthz under abusive/ordinary GraphQL',
    numerator: 'healthz-graphql-abusive',
    denominator: 'healthz-graphql-ordinary',
    target: 0.5,
  },
];
