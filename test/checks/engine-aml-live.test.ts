// Live sessions over HTTP screened by the real engine: AML hits against the synthetic lists, the email check, and fraud networks across accounts.
import type { Mode } from '../../src/config.js';
import type { DocumentRead, Identity } from '../../src/engine/types.js';
import type { BootstrapResult } from '../../src/services/access/index.js';
import { Verification } from '../../src/entities/verification.entity.js';
import { scopedFork } from '../../src/orm.js';
import { searchFaces, signalFaceNetwork } from '../../src/services/fraud-networks/index.js';
import { faceBuckets, FACE_LSH } from '../../src/services/fraud-networks/face-index.js';
import { sealIdentity } from '../../src/services/verifications/index.js';
import { withTestAccount } from '../support/account.js';
import { createVerification, keyOf } from '../support/factories.js';
import { jpegBytes } from '../support/fixtures.js';
import type { TestServer } from '../support/test-server.js';
import { waitFor } from '../support/wait.js';

let server: TestServer;
let account: BootstrapResult;
let other: BootstrapResult;

withTestAccount(
  async (t) => {
    ({ server, account } = t);
    other = await server.bootstrap();
  },
  { env: { RATE_LIMIT_PER_MINUTE: '100000' } },
);

/**
 * What the document check reads off the front image, stored the way the engine stores it
 * (encrypted identity and its fingerprints). Live create cannot carry document data, and
 * OCR of a rendered document is engine-doc's part; this stands in for its read.
 */
async function documentRead(id: string, document: DocumentRead): Promise<void> {
  const [row] = await server.sql<{ identity: string | null }>('select identity from verifications where id = $1', [id]);
  const identity: Identity = row?.identity ? server.runtime.vault.decrypt<Identity>(row.identity) : {};
  const sealed = sealIdentity(server.runtime.vault, { ...identity, document });
  await server.sql(
    'update verifications set identity = $1, document_fingerprint = $2, national_id_fingerprint = $3 where id = $4',
    [sealed.ciphertext, sealed.fingerprints.document, sealed.fingerprints.nationalId, id],
  );
}

/** The applicant's side: the document front uploaded through the presigned URL and completed, which starts the checks. */
async function submitDocument(owner: BootstrapResult, id: string): Promise<void> {
  const token = keyOf(owner, 'live');
  const created = await server.request(`/v1/verifications/${id}/uploads`, {
    token,
    body: { kind: 'document', content_type: 'image/jpeg', side: 'front' },
  });
  expect(created.status).toBe(201);
  const put = await fetch(created.body.upload_url, {
    method: 'PUT',
    body: new Uint8Array(jpegBytes()),
    headers: { 'content-type': 'image/jpeg', connection: 'close' },
  });
  expect(put.status).toBe(200);
  const done = await server.request(`/v1/verifications/${id}/uploads/${created.body.upload_id}/complete`, {
    method: 'POST',
    token,
  });
  expect(done.status).toBe(200);
}

/** A live session through the API: created, its document read, submitted, and settled by the engine. */
async function liveSession(owner: BootstrapResult, body: Record<string, unknown>, document: DocumentRead) {
  const created = await createVerification(server, owner, 'live' as Mode, body);
  await documentRead(created.id, document);
  await submitDocument(owner, created.id);
  return waitFor(
    async () => {
      const res = await server.request(`/v1/verifications/${created.id}`, { token: keyOf(owner, 'live') });
      return ['approved', 'rejected', 'manual_review', 'expired'].includes(res.body.status) ? res.body : undefined;
    },
    20_000,
    `verification ${created.id} to settle`,
  );
}

const person = (
  first: string,
  last: string,
  dob: string,
  number: string,
  extra: Partial<DocumentRead> = {},
): DocumentRead => ({
  type: 'passport',
  number,
  issuing_country: 'GBR',
  nationality: 'GBR',
  first_name: first,
  last_name: last,
  date_of_birth: dob,
  expiry_date: '2031-01-01',
  ...extra,
});

const eventsOf = (merchantId: string) =>
  server.sql<{ type: string; verification_id: string; payload: Record<string, any> }>(
    'select type, verification_id, payload from events where merchant_id = $1 order by created_at, id',
    [merchantId],
  );

/** No event carries the applicant's name, date of birth, document number or email. */
function expectNoIdentity(payloads: unknown[], document: DocumentRead, email?: string): void {
  const text = JSON.stringify(payloads).toLowerCase();
  for (const value of [document.first_name, document.last_name, document.date_of_birth, document.number, email])
    if (value) expect(text).not.toContain(value.toLowerCase());
}

describe('AML screening of a live session', () => {
  const sidorov = person('IVAN', 'SIDOROV', '1965-03-12', 'RU7654321', { nationality: 'RUS', issuing_country: 'RUS' });

  it('a list hit with config.on_match reject rejects with SANCTIONS_MATCH and a finding naming list, entry id and score', async () => {
    const v = await liveSession(account, { checks: [{ type: 'aml', config: { on_match: 'reject' } }] }, sidorov);
    expect(v).toMatchObject({ status: 'rejected', verdict: 'reject', reason_codes: ['SANCTIONS_MATCH'] });
    const [check] = v.checks;
    expect(check).toMatchObject({ type: 'aml', verdict: 'reject', reason_codes: ['SANCTIONS_MATCH'] });
    expect(check.findings).toEqual([
      expect.objectContaining({
        code: 'SANCTIONS_MATCH',
        list: 'synthetic_sanctions',
        entry_id: 'syn-p-0001',
        score: expect.any(Number),
      }),
    ]);
    expect(check.findings[0].score).toBeGreaterThanOrEqual(0.85);
    // The back office reads the same findings through GraphQL.
    const gql = await server.graphql(
      account.member.session_token,
      'query($id: ID!) { verification(id: $id, environment: live) { checks { type findings } } }',
      { id: v.id },
    );
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.verification.checks[0].findings).toEqual(check.findings);
    const events = (await eventsOf(account.merchant.id)).filter((e) => e.verification_id === v.id);
    expect(events.map((e) => e.type)).toEqual(
      expect.arrayContaining(['check.completed', 'verification.completed', 'verification.rejected']),
    );
    expectNoIdentity(
      events.map((e) => e.payload),
      sidorov,
    );
    // The hit itself (list, entry) stays out of events too: only the check's outcome facts go out.
    expect(JSON.stringify(events.map((e) => e.payload))).not.toMatch(/syn-p-0001|synthetic_sanctions/);
  });

  it('by default a hit sends the session to manual review (a person confirms a fuzzy match)', async () => {
    const typo = { ...sidorov, last_name: 'SIDOROW', number: 'RU7654322' };
    const v = await liveSession(account, { checks: [{ type: 'aml' }] }, typo);
    expect(v).toMatchObject({ status: 'manual_review', reason_codes: ['SANCTIONS_MATCH'] });
    expect(v.checks[0].findings[0]).toMatchObject({ entry_id: 'syn-p-0001', date_of_birth: 'exact' });
  });

  it('a person on no list is approved with no finding; the same name born 25 years later is no hit', async () => {
    const clean = await liveSession(
      account,
      { checks: [{ type: 'aml' }] },
      person('JANE', 'DOE', '1985-04-12', 'GB1000001'),
    );
    expect(clean).toMatchObject({ status: 'approved', reason_codes: [] });
    expect(clean.checks[0].findings).toEqual([]);
    const namesake = await liveSession(
      account,
      { checks: [{ type: 'aml' }] },
      { ...sidorov, date_of_birth: '1990-01-01', number: 'RU7654323' },
    );
    expect(namesake).toMatchObject({ status: 'approved' });
  });
});

describe('aml and email step options are validated at the edge', () => {
  it.each([
    [
      'aml on_match unknown (would silently review)',
      { type: 'aml', config: { on_match: 'block' } },
      'PARAMETER_INVALID',
      'steps[0].config.on_match',
    ],
    [
      'aml lists not an array',
      { type: 'aml', config: { lists: 'ofac_sdn' } },
      'PARAMETER_INVALID',
      'steps[0].config.lists',
    ],
    [
      'email on_disposable unknown',
      { type: 'email', config: { on_disposable: 'allow' } },
      'PARAMETER_INVALID',
      'steps[0].config.on_disposable',
    ],
    [
      'email require_confirmation not a boolean',
      { type: 'email', config: { require_confirmation: 'yes' } },
      'PARAMETER_INVALID',
      'steps[0].config.require_confirmation',
    ],
  ])('%s: 400 with the param', async (_label, step, code, param) => {
    const res = await server.request('/v1/flows', {
      token: keyOf(account, 'sandbox'),
      body: { name: 'x', steps: [step] },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code, param });
  });

  it('valid options are kept on the flow', async () => {
    const steps = [
      { type: 'aml', threshold: 0.9, config: { on_match: 'reject', on_pep_match: 'ignore', lists: ['ofac_sdn'] } },
      { type: 'email', config: { on_disposable: 'reject', require_confirmation: true } },
    ];
    const res = await server.request('/v1/flows', {
      token: keyOf(account, 'sandbox'),
      body: { name: 'Screened', steps },
    });
    expect(res.status).toBe(201);
    expect(res.body.steps).toEqual([expect.objectContaining(steps[0]), expect.objectContaining(steps[1])]);
  });
});

describe('the email check of a live session', () => {
  it('a disposable address goes to review with EMAIL_DISPOSABLE; the address is in no event', async () => {
    const email = 'applicant@mailinator.com';
    const doc = person('MARY', 'ROE', '1990-02-02', 'GB2000002');
    const v = await liveSession(account, { applicant: { email }, checks: [{ type: 'email' }, { type: 'aml' }] }, doc);
    expect(v).toMatchObject({ status: 'manual_review', reason_codes: ['EMAIL_DISPOSABLE'] });
    expect(v.checks.find((c: { type: string }) => c.type === 'email')).toMatchObject({
      verdict: 'review',
      reason_codes: ['EMAIL_DISPOSABLE'],
    });
    const events = (await eventsOf(account.merchant.id)).filter((e) => e.verification_id === v.id);
    expectNoIdentity(
      events.map((e) => e.payload),
      doc,
      email,
    );
  });
});

describe('fraud networks', () => {
  it('the same document presented by different people in two accounts raises the signal in both, without leaking one to the other', async () => {
    const alice = person('ALICE', 'SMITH', '1990-01-01', 'GB5550001');
    const bob = person('BOB', 'JONES', '1985-05-05', 'GB5550001');
    const first = await liveSession(account, { checks: [{ type: 'aml' }] }, alice);
    expect(first).toMatchObject({ status: 'approved' });
    expect((await eventsOf(account.merchant.id)).filter((e) => e.type.startsWith('fraud_network.'))).toEqual([]);

    const second = await liveSession(other, { checks: [{ type: 'aml' }] }, bob);
    expect(second).toMatchObject({ status: 'manual_review', reason_codes: ['FRAUD_NETWORK'] });
    const finding = second.checks[0].findings.find((f: { code: string }) => f.code === 'FRAUD_NETWORK');
    expect(finding).toMatchObject({
      kind: 'document',
      scope: 'cross_account',
      verification_count: 1,
      network_id: expect.stringMatching(/^fn_/),
    });

    const mine = (await eventsOf(other.merchant.id)).filter((e) => e.type.startsWith('fraud_network.'));
    const theirs = (await eventsOf(account.merchant.id)).filter((e) => e.type.startsWith('fraud_network.'));
    expect(mine.map((e) => [e.type, e.verification_id])).toEqual([['fraud_network.created', second.id]]);
    expect(theirs.map((e) => [e.type, e.verification_id])).toEqual([['fraud_network.created', first.id]]);
    expect(mine[0]!.payload.fraud_network).toMatchObject({
      id: finding.network_id,
      scope: 'cross_account',
      verifications: [second.id],
    });
    expect(theirs[0]!.payload.fraud_network).toMatchObject({ scope: 'cross_account', verifications: [first.id] });
    // Each account sees its own network id and its own verifications only.
    expect(theirs[0]!.payload.fraud_network.id).not.toBe(finding.network_id);
    const mineText = JSON.stringify([mine, second]);
    const theirsText = JSON.stringify(theirs);
    expect(mineText).not.toContain(first.id);
    expect(mineText).not.toContain(account.merchant.id);
    expect(theirsText).not.toContain(second.id);
    expect(theirsText).not.toContain(other.merchant.id);
    expectNoIdentity(
      [...mine, ...theirs].map((e) => e.payload),
      alice,
    );
    expectNoIdentity(
      [...mine, ...theirs].map((e) => e.payload),
      bob,
    );
    // And the other account's verification stays invisible to this one's key.
    expect((await server.request(`/v1/verifications/${first.id}`, { token: keyOf(other, 'live') })).status).toBe(404);
  });

  it('the same person presenting their own document to two accounts is no signal', async () => {
    const carol = person('CAROL', 'WHITE', '1970-07-07', 'GB5550002');
    await liveSession(account, { checks: [{ type: 'aml' }] }, carol);
    const again = await liveSession(
      other,
      { checks: [{ type: 'aml' }] },
      { ...carol, first_name: 'Carol', last_name: 'White' },
    );
    expect(again).toMatchObject({ status: 'approved', reason_codes: [] });
    expect(again.checks[0].findings).toEqual([]);
  });

  it('a third presenter in one account is a modification of that account network, with its count', async () => {
    const dan = person('DAN', 'BROWN', '1979-09-09', 'GB5550001');
    const third = await liveSession(other, { checks: [{ type: 'aml' }] }, dan);
    expect(third.checks[0].findings[0]).toMatchObject({ code: 'FRAUD_NETWORK', verification_count: 2 });
    const mine = (await eventsOf(other.merchant.id)).filter((e) => e.type.startsWith('fraud_network.'));
    expect(mine.map((e) => e.type)).toEqual(['fraud_network.created', 'fraud_network.modified']);
    expect(mine[1]!.payload.fraud_network).toMatchObject({
      id: mine[0]!.payload.fraud_network.id,
      verification_count: 2,
    });
    // The first account's view did not change (still one of its verifications, still cross-account): no event for it.
    expect((await eventsOf(account.merchant.id)).filter((e) => e.type.startsWith('fraud_network.'))).toHaveLength(1);
  });
});

describe('face networks (searched through the LSH index outside the settling transaction)', () => {
  const approved = {
    status: 'completed' as const,
    verdict: 'approve' as const,
    score: 0.95,
    reasonCodes: [],
    providerTier: 'standard',
  };
  /** A deterministic 128-dimension vector; `noise` moves it a little (the same face in another photo). */
  const embedding = (seed: number, noise = 0) =>
    Array.from({ length: 128 }, (_, i) => Math.sin(seed * 13.7 + i) + noise * Math.cos(i * 3.1));

  async function faceSignal(owner: BootstrapResult, document: DocumentRead, vector: number[]) {
    const created = await createVerification(server, owner, 'live', { checks: [{ type: 'face_match' }] });
    const em = scopedFork(server.runtime.orm, { merchantId: owner.merchant.id, modes: ['live'] });
    const found = await searchFaces(
      em,
      server.runtime.vault,
      await em.findOneOrFail(Verification, { id: created.id }),
      { document },
      vector,
    );
    expect(found).not.toBeNull();
    const outcome = await em.transactional(async (tx) => {
      const v = await tx.findOneOrFail(Verification, { id: created.id });
      return signalFaceNetwork(tx, server.runtime.vault, v, { document }, vector, found!, approved);
    });
    return { id: created.id, outcome, found: found! };
  }

  it('the same face under two identities in two accounts is a cross-account face network; a different face is not', async () => {
    const first = await faceSignal(account, person('ERIN', 'GRAY', '1991-01-01', 'GB7770001'), embedding(1));
    expect(first.outcome).toEqual(approved);
    const stranger = await faceSignal(other, person('FRANK', 'HILL', '1980-02-02', 'GB7770002'), embedding(2));
    expect(stranger.outcome).toEqual(approved);
    const sameFace = await faceSignal(other, person('GINA', 'KING', '1992-03-03', 'GB7770003'), embedding(1, 0.05));
    expect(sameFace.outcome).toMatchObject({
      verdict: 'review',
      reasonCodes: ['FRAUD_NETWORK'],
      findings: [{ code: 'FRAUD_NETWORK', kind: 'face', scope: 'cross_account' }],
    });
    const mine = (await eventsOf(other.merchant.id)).filter(
      (e) => e.type === 'fraud_network.created' && e.payload.fraud_network.kind === 'face',
    );
    expect(mine.map((e) => e.verification_id)).toEqual([sameFace.id]);
    const theirs = (await eventsOf(account.merchant.id)).filter(
      (e) => e.type === 'fraud_network.created' && e.payload.fraud_network.kind === 'face',
    );
    expect(theirs.map((e) => e.verification_id)).toEqual([first.id]);
    // Neither account's event or finding names the other account's verification.
    expect(JSON.stringify(mine)).not.toContain(first.id);
    expect(JSON.stringify(theirs)).not.toContain(sameFace.id);
    expect(JSON.stringify(sameFace.outcome)).not.toContain(first.id);
  });

  it('each stored face carries its index buckets; another face is not returned', async () => {
    const vector = embedding(7);
    const unit = vector.map((x) => x / Math.hypot(...vector));
    const stored = await faceSignal(account, person('HUGO', 'LANE', '1985-05-05', 'GB7770007'), vector);
    const [row] = await server.runtime.orm.em
      .getConnection()
      .execute(`select face_buckets from fraud_signals where id = ?`, [stored.found.signalId]);
    expect(row.face_buckets).toEqual(faceBuckets(unit));
    expect(row.face_buckets).toHaveLength(FACE_LSH.bands);
    // Another person's face (the opposite direction) is not returned: candidates are compared exactly.
    const far = await faceSignal(
      other,
      person('IRIS', 'MOSS', '1975-06-06', 'GB7770008'),
      unit.map((x) => -x),
    );
    expect(far.found.others.map((o) => o.verification_id)).not.toContain(stored.id);
  });

  it('a face stored before the index (another model, no buckets) is never compared with a new descriptor', async () => {
    const created = await createVerification(server, account, 'live', { checks: [{ type: 'face_match' }] });
    const old = Array.from({ length: 1024 }, (_, i) => Math.cos(i));
    await server.runtime.orm.em
      .getConnection()
      .execute(
        `insert into fraud_signals (id, merchant_id, mode, verification_id, kind, holder_fingerprint, embedding) values ('fsg_old_model', ?, 'live', ?, 'face', 'x', ?::real[])`,
        [account.merchant.id, created.id, `{${old.join(',')}}`],
      );
    const probe = await faceSignal(other, person('JUNE', 'NASH', '1990-07-07', 'GB7770009'), old.slice(0, 128));
    expect(probe.found.others.map((o) => o.id)).not.toContain('fsg_old_model');
  });
});
