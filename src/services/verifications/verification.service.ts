import type { Mode } from '../../config.js';
import type { Step } from '../../entities/flow.entity.js';
import { Upload } from '../../entities/upload.entity.js';
import { Verification, type SandboxInput } from '../../entities/verification.entity.js';
import type { DocumentRead, Identity } from '../../engine/types.js';
import { notFound, parameterInvalid, parameterUnknown, permissionError } from '../../errors.js';
import { randomBase62 } from '../../ids.js';
import type { SnapshotSource } from '../catalog/index.js';
import { gateCreateRaw } from '../repeat-control/index.js';
import { openCreate } from './create-open.sql.js';
import { buildSession, insertSession, type NewVerification } from './create-session.sql.js';
import {
  actingEnvironment,
  type ServiceContext,
  markAnswered,
  type IdempotencyClaim,
  inTransaction,
  withConnection,
  tenantSql,
} from '../shared/index.js';
import { sealIdentity } from './identity.js';
import { callerKeyId } from '../webhooks/index.js';
import { RUN_CHECKS_JOB, scheduleExpiry } from './verification-lifecycle.js';

export interface SandboxRequest extends SandboxInput {
  document?: DocumentRead;
}

export interface CreateVerificationInput {
  flow?: string;
  checks?: Step[];
  applicant?: { reference_id?: string; email?: string };
  locale?: string;
  metadata?: Record<string, string>;
  sandbox?: SandboxRequest;
  return_url?: string;
}

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The hosted end screen's way back (decisions.md): https, or http on a local host in sandbox
 * (a developer's own machine); no credentials in it. Only this URL is ever followed by the page.
 */
export function checkedReturnUrl(raw: string, mode: Mode): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw parameterInvalid('return_url', 'return_url must be an absolute https URL.');
  }
  const local = LOCAL_HOSTS.has(url.hostname) || url.hostname.endsWith('.localhost');
  const allowed = url.protocol === 'https:' || (url.protocol === 'http:' && local && mode === 'sandbox');
  if (!allowed) {
    throw parameterInvalid(
      'return_url',
      mode === 'sandbox'
        ? 'return_url must be an https URL (http only on localhost in sandbox).'
        : 'return_url must be an https URL.',
    );
  }
  if (url.username || url.password) throw parameterInvalid('return_url', 'return_url must not carry credentials.');
  return raw;
}

/** BCP 47, canonicalised; unknown tags are refused (decisions.md). */
export function canonicalLocale(tag: string): string {
  try {
    const [canonical] = Intl.getCanonicalLocales(tag);
    if (canonical && Intl.DateTimeFormat.supportedLocalesOf([canonical]).length === 1) return canonical;
  } catch {
    /* fall through */
  }
  throw parameterInvalid('locale', `Unknown locale "${tag}"; send a BCP 47 tag such as en or de-CH.`);
}

/** A valid specimen for sandbox sessions that name no document; a fresh number each time. */
function sandboxSpecimen(): DocumentRead {
  const expiry = new Date(Date.now() + 5 * 365 * 24 * 3600 * 1000).toISOString().slice(0, 10);
  return {
    type: 'passport',
    number: `SBX${randomBase62(9).toUpperCase()}`,
    issuing_country: 'UTO',
    date_of_birth: '1990-01-01',
    expiry_date: expiry,
    first_name: 'Sandbox',
    last_name: 'Applicant',
  };
}

/** The identity a create stores: email and reference as given, a sandbox document when one is read. */
function identityToSeal(input: CreateVerificationInput, runsNow: boolean): Identity {
  const identity: Identity = {};
  if (input.applicant?.email) identity.email = input.applicant.email.trim();
  if (input.applicant?.reference_id) identity.reference_id = input.applicant.reference_id;
  // Every sandbox session reads a document: the given one, else the specimen (a session left
  // pending for the hosted page or the key API's uploads too, so it settles with its outcome).
  if (input.sandbox || runsNow) identity.document = input.sandbox?.document ?? sandboxSpecimen();
  return identity;
}

export interface CreatedVerification {
  verification: NewVerification;
  /** Returned once; only its SHA-256 is stored. */
  clientToken: string;
}

/** An idempotent create: the key to claim and how its 201 answer reads (stored with the session). */
export interface CreateIdempotency {
  claim: IdempotencyClaim;
  present(created: CreatedVerification): unknown;
}

/**
 * POST /v1/verifications: resolve what runs, seal the identity, gate repeats, create the
 * pending session, in one transaction on one connection (raw SQL: this is the hot path),
 * claiming the Idempotency-Key and storing its answer in the same transaction. A sandbox
 * outcome other than `pending` runs at once, as if the applicant had completed it.
 */
export async function createVerification(
  ctx: ServiceContext,
  input: CreateVerificationInput,
  idempotency?: CreateIdempotency,
): Promise<CreatedVerification> {
  const mode = actingEnvironment(ctx);
  if (input.sandbox && mode === 'live') throw parameterUnknown('sandbox');
  const locale = input.locale ? canonicalLocale(input.locale) : 'en';
  const runsNow = !!input.sandbox && input.sandbox.outcome !== 'pending';
  const returnUrl = input.return_url ? checkedReturnUrl(input.return_url, mode) : null;
  const identity = identityToSeal(input, runsNow);
  const sealed = sealIdentity(ctx.runtime.vault, identity);
  const expiry = identity.document?.expiry_date;
  const scope = { merchantId: ctx.merchantId, mode, callerKeyId: callerKeyId(ctx) };
  const claim = idempotency?.claim ?? null;
  const outcome = await withConnection(ctx.runtime.orm, (sql) =>
    inTransaction(sql, async () => {
      const flow = await openCreate(
        sql,
        scope,
        { flowId: input.flow, checks: input.checks },
        { claim, fingerprints: sealed.fingerprints },
      );
      const gate = await gateCreateRaw(
        sql,
        scope,
        flow,
        sealed.fingerprints,
        (r) => claim?.answer(r.status, { error: r.toEnvelope(ctx.requestId) }) ?? null,
      );
      if (gate.refusal) {
        // ALREADY_VERIFIED wrote its event (and stored answer): commit, then answer 409. Other refusals wrote nothing.
        if (gate.refusal.code !== 'ALREADY_VERIFIED') throw gate.refusal;
        if (claim) markAnswered(gate.refusal);
        return { refusal: gate.refusal };
      }
      const session = buildSession({
        merchantId: ctx.merchantId,
        mode,
        flow,
        ttlSeconds: ctx.runtime.config.verificationTtlSeconds,
        apiKeyId: scope.callerKeyId,
        locale,
        metadata: input.metadata ?? {},
        sandbox: input.sandbox ? { outcome: input.sandbox.outcome, reason_codes: input.sandbox.reason_codes } : null,
        identity: sealed.ciphertext,
        fingerprints: sealed.fingerprints,
        documentExpiresOn: expiry && /^\d{4}-\d{2}-\d{2}$/.test(expiry) ? expiry : null,
        processNow: runsNow,
        returnUrl,
      });
      const created = { verification: session.verification, clientToken: session.clientToken };
      await insertSession(
        sql,
        session,
        gate.grantId ?? null,
        idempotency ? idempotency.claim.answer(201, idempotency.present(created)) : null,
      );
      return { created };
    }),
  );
  if ('refusal' in outcome) throw outcome.refusal;
  await afterCreate(ctx, outcome.created.verification, runsNow);
  return outcome.created;
}

/**
 * A flow preview's session (POST /v1/flows/{id}/preview): sandbox whatever the caller's
 * environment, the preview lifetime, no applicant, written by the same statement as every
 * other new session.
 */
export async function createPreviewSession(
  ctx: ServiceContext,
  flow: SnapshotSource & { id: string },
): Promise<CreatedVerification> {
  const session = buildSession({
    merchantId: ctx.merchantId,
    mode: 'sandbox',
    flow: {
      ...flow,
      ownRepeatPolicy: null,
      repeatPolicy: { enabled: false, scope: 'same_flow' },
      reverificationPeriodDays: null,
    },
    ttlSeconds: ctx.runtime.config.previewTtlSeconds,
    apiKeyId: callerKeyId(ctx),
    locale: 'en',
    metadata: {},
    sandbox: null,
    identity: null,
    fingerprints: { email: null, reference: null, document: null, nationalId: null },
    documentExpiresOn: null,
    processNow: false,
    isPreview: true,
  });
  await withConnection(ctx.runtime.orm, (sql) => inTransaction(sql, () => insertSession(sql, session, null, null)));
  await afterCreate(ctx, session.verification, false);
  return { verification: session.verification, clientToken: session.clientToken };
}

/**
 * Jobs for a committed session. A failure here must not fail the request (the session and
 * its stored answer exist): the sweep expires a session whose expiry job was lost and
 * re-queues one whose checks never started.
 */
async function afterCreate(ctx: ServiceContext, v: NewVerification, runsNow: boolean): Promise<void> {
  await scheduleExpiry(ctx.runtime, v);
  if (!runsNow) return;
  await ctx.runtime.jobs
    .now(RUN_CHECKS_JOB, { verificationId: v.id, merchantId: ctx.merchantId, mode: v.mode })
    .catch((error: Error) => {
      ctx.log.warn({ err: error }, `run-checks job for ${v.id} not queued; the sweep re-queues it`);
    });
}

export type Include = 'applicant' | 'documents';

/** One verification of the caller's account and environment; 404 otherwise. */
export async function getVerification(ctx: ServiceContext, id: string): Promise<Verification> {
  const v = /^vs_[0-9A-Za-z]+$/.test(id) ? await ctx.em.findOne(Verification, { id }, { populate: ['checks'] }) : null;
  if (!v) throw notFound('verification', id);
  return v;
}

/** `include=applicant,documents` needs applicant:read: a 403, never a silent omission. */
export function assertMayInclude(ctx: ServiceContext, include: Include[]): void {
  if (include.length === 0 || ctx.caller.kind !== 'key') return;
  if (!ctx.caller.permissions.includes('applicant:read')) {
    throw permissionError(
      'INSUFFICIENT_PERMISSIONS',
      `include=${include.join(',')} needs the permission "applicant:read", which this key does not hold.`,
    );
  }
}

/** The decrypted identity of one of the context's verifications (only for explicit, authorised reads); null once purged. */
export async function identityOf(ctx: ServiceContext, verificationId: string): Promise<Identity | null> {
  const [row] = await tenantSql(ctx).query<{ identity: string | null }>(
    'select identity from verifications where id = $3 and merchant_id = $1 and mode = any($2::text[])',
    [verificationId],
    'idv_verification_identity',
  );
  return row?.identity ? ctx.runtime.vault.decrypt<Identity>(row.identity) : null;
}

export async function uploadedEvidence(ctx: ServiceContext, verificationId: string): Promise<Upload[]> {
  return ctx.em.find(Upload, { verification: verificationId, status: 'uploaded' }, { orderBy: { createdAt: 'asc' } });
}
