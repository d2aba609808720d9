import { randomBase62 } from '../src/ids.js';
import { call, expectStatus, inParallel } from './api.js';
import { createStatements, insertCreate, readTemplate, removeCeilingRows } from './create-ceiling.js';
import { measureLoop, openPool } from './database.js';
import type { Measurement } from './load.js';
import type { BenchContext, Comparison, Scenario } from './scenarios.js';

/**
 * POST /v1/verifications: a pending sandbox create (no checks run) against the same inserts
 * done with raw `pg` in the same run (the ceiling), and a create refused because the applicant
 * already holds an approval (409 ALREADY_VERIFIED: the create-time matching path).
 */

/** The bench data folder outlives a run: ids and applicants carry a per-run token so they never repeat. */
const RUN = randomBase62(8).toLowerCase();
let sequence = 0;
const nextUnique = () => `${RUN}-${++sequence}`;

/**
 * Two approved applicants per connection, taken in turn, so refusals rarely queue on one
 * person's lock (a refusal locks the person and bumps the approval's event sequence).
 */
const approvedPeople = (ctx: BenchContext) => Math.min(100, ctx.settings.connections * 2);

const createBody = (email: string) => ({ applicant: { email }, sandbox: { outcome: 'pending' } });

/** A unique Idempotency-Key and applicant per request: repeat control never refuses, no key ever replays. */
export function pendingCreate(): { headers: Record<string, string>; body: string } {
  const n = nextUnique();
  return { headers: { 'idempotency-key': `bench-${n}` }, body: JSON.stringify(createBody(`bench.${n}@example.org`)) };
}

interface Created {
  id: string;
  body: unknown;
}

let template: Promise<Created> | undefined;

/** A create made through the service before anything is timed; the ceiling copies its values. */
async function createdOnce(ctx: BenchContext): Promise<Created> {
  template ??= (async () => {
    const res = await call(
      `${ctx.serviceUrl}/v1/verifications`,
      ctx.sandboxKey,
      'POST',
      createBody(`bench.${nextUnique()}@example.org`),
      { 'idempotency-key': `bench-${nextUnique()}` },
    );
    expectStatus(res, 201, 'POST /v1/verifications (pending)');
    return { id: res.body.id as string, body: res.body };
  })();
  return template;
}

async function throughService(ctx: BenchContext): Promise<Measurement> {
  await createdOnce(ctx);
  return ctx.measure({
    url: `${ctx.serviceUrl}/v1/verifications`,
    method: 'POST',
    headers: { authorization: `Bearer ${ctx.sandboxKey}` },
    perRequest: pendingCreate,
  });
}

/** One pg client per load connection, each running the create transaction back to back. */
async function ceiling(ctx: BenchContext): Promise<Measurement> {
  const created = await createdOnce(ctx);
  const pool = openPool(ctx);
  const clients = await Promise.all(Array.from({ length: ctx.settings.connections }, () => pool.connect()));
  const first = clients[0]!;
  try {
    const stale = await removeCeilingRows(first);
    if (stale) ctx.log(`  removed ${stale} ceiling verifications left by an earlier run`);
    const t = await readTemplate(first, created.id, created.body);
    if (t.checks.length === 0)
      throw new Error(
        `create ceiling: template ${created.id} has no checks; the service should have written its flow's steps`,
      );
    ctx.log(`  per create: 1 idempotency row, 1 verification, ${t.checks.length} checks, 2 events`);
    const sql = createStatements(t);
    const result = await measureLoop(ctx, (worker) => insertCreate(clients[worker]!, t, sql));
    await removeCeilingRows(first);
    return result;
  } finally {
    for (const client of clients) client.release();
    await pool.end();
  }
}

const TERMINAL = ['rejected', 'manual_review', 'expired'];

/** Sandbox creates with outcome approved run their checks in a job; wait for the verdict. */
async function approve(ctx: BenchContext, referenceId: string): Promise<void> {
  const res = await call(`${ctx.serviceUrl}/v1/verifications`, ctx.sandboxKey, 'POST', {
    applicant: { reference_id: referenceId },
    sandbox: { outcome: 'approved' },
  });
  const id = expectStatus(res, 201, 'POST /v1/verifications (sandbox approved)').body.id as string;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const read = expectStatus(
      await call(`${ctx.serviceUrl}/v1/verifications/${id}`, ctx.sandboxKey, 'GET'),
      200,
      `GET /v1/verifications/${id}`,
    );
    if (read.body.status === 'approved') return;
    if (TERMINAL.includes(read.body.status))
      throw new Error(`sandbox approved verification ${id} became ${read.body.status}`);
    if (Date.now() > deadline)
      throw new Error(`sandbox approved verification ${id} still ${read.body.status} after 60 s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const refusedFor = (referenceId: string) => {
  const n = nextUnique();
  return {
    headers: { 'idempotency-key': `bench-${n}` },
    body: JSON.stringify({ applicant: { reference_id: referenceId }, sandbox: { outcome: 'pending' } }),
  };
};

const isAlreadyVerified = (body: string) => body.includes('"code":"ALREADY_VERIFIED"');

/** The same create, naming a person who holds an approval: the gate refuses it before any session exists. */
async function matching(ctx: BenchContext): Promise<Measurement> {
  const people = Array.from({ length: approvedPeople(ctx) }, (_, i) => `bench-match-${RUN}-${i}`);
  const started = Date.now();
  await inParallel(people.length, 10, (i) => approve(ctx, people[i]!));
  ctx.log(`  ${people.length} applicants approved in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const probe = refusedFor(people[0]!);
  const res = await call(
    `${ctx.serviceUrl}/v1/verifications`,
    ctx.sandboxKey,
    'POST',
    JSON.parse(probe.body),
    probe.headers,
  );
  expectStatus(res, 409, 'POST /v1/verifications for an approved applicant');
  if (res.body?.error?.code !== 'ALREADY_VERIFIED')
    throw new Error(`expected 409 ALREADY_VERIFIED, got ${JSON.stringify(res.body).slice(0, 300)}`);
  let turn = 0;
  return ctx.measure({
    url: `${ctx.serviceUrl}/v1/verifications`,
    method: 'POST',
    headers: { authorization: `Bearer ${ctx.sandboxKey}` },
    perRequest: () => refusedFor(people[turn++ % people.length]!),
    expectStatus: 409,
    verifyBody: isAlreadyVerified,
  });
}

export const verificationScenarios: Scenario[] = [
  {
    name: 'verifications-create',
    label: 'service POST /v1/verifications (pending, unique applicant)',
    run: throughService,
  },
  {
    name: 'verifications-create-sql',
    label: 'same create inserts directly with pg, 1 tx each (ceiling)',
    run: ceiling,
  },
  { name: 'verifications-match', label: 'service POST /v1/verifications, approved applicant (409)', run: matching },
];

export const verificationComparisons: Comparison[] = [
  // HTTP, auth, idempotency, flow resolution, repeat control and the ORM against the bare inserts.
  {
    name: 'create/sql-ceiling',
    numerator: 'verifications-create',
    denominator: 'verifications-create-sql',
    target: 0.5,
  },
  // Informational. A refusal does a subset of a create's work (same auth, idempotency, flow and
  // approval lookup) plus one event and one row update, instead of six inserts and an expiry job,
  // so it should be at least as fast; 0.8 leaves room for noise. Below it, matching costs more
  // than the session it saves creating.
  { name: 'match/create', numerator: 'verifications-match', denominator: 'verifications-create', target: 0.8 },
];
