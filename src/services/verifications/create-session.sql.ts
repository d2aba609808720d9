import type { Mode } from '../../config.js';
import { sha256Hex } from '../../crypto.js';
import type { Step } from '../../entities/flow.entity.js';
import type { Consent, FlowSnapshot, SandboxInput, VerificationStatus } from '../../entities/verification.entity.js';
import { newId, randomBase62 } from '../../ids.js';
import { verificationEventData, type EventType } from '../webhooks/index.js';
import { checkOfStep, snapshotOf } from '../catalog/index.js';
import type { CreateFlow } from './create-open.sql.js';
import type { Fingerprints } from './identity.js';
import {
  answerParams,
  IDEMPOTENCY_ANSWER,
  placeFragment,
  tenantSql,
  TENANT_ROW,
  type AnswerSlot,
  type RawSql,
} from '../shared/index.js';

/**
 * The rows of a new session (every path that starts one: the key API's create and flow previews) and
 * the one statement that writes them: the verification, its checks, its outbox events, the
 * grant it spends and the idempotency answer, all or nothing.
 */

export interface NewCheck {
  id: string;
  position: number;
  type: string;
  required: boolean;
  sensitivity: number | null;
  threshold: number | null;
  config: Record<string, unknown>;
  status: 'pending';
  verdict: null;
  score: null;
  providerTier: string;
  reasonCodes: string[];
  createdAt: Date;
  updatedAt: Date;
}

/** A created verification as the presenter reads it (the fields an entity would have). */
export interface NewVerification {
  id: string;
  status: VerificationStatus;
  mode: Mode;
  flow: { id: string };
  flowSnapshot: FlowSnapshot;
  verdict: null;
  score: null;
  reasonCodes: string[];
  changeReason: null;
  declineType: null;
  identityVersion: number;
  identityEditedAt: null;
  locale: string;
  metadata: Record<string, string>;
  sandbox: SandboxInput | null;
  expiresAt: Date;
  createdAt: Date;
  updatedAt: Date;
  sequence: number;
  apiKeyId: string | null;
  consent: Consent | null;
  returnUrl: string | null;
  checks: NewCheck[];
}

export interface SessionInput {
  merchantId: string;
  mode: Mode;
  flow: CreateFlow;
  ttlSeconds: number;
  apiKeyId: string | null;
  locale: string;
  metadata: Record<string, string>;
  sandbox: SandboxInput | null;
  identity: string | null;
  fingerprints: Fingerprints;
  documentExpiresOn: string | null;
  /** Sandbox outcomes other than pending start processing at once (verification.awaiting_service). */
  processNow: boolean;
  /** A flow preview's session (decisions.md): sandbox, never billed or matched. */
  isPreview?: boolean;
  /** Where the hosted page's end screen sends the applicant (checked by the caller). */
  returnUrl?: string | null;
}

export interface NewSession {
  verification: NewVerification;
  /** Returned once; only its SHA-256 is stored. */
  clientToken: string;
  events: { id: string; type: EventType; payload: Record<string, unknown> }[];
  input: SessionInput;
}

const newCheck = (step: Step, position: number, now: Date): NewCheck => ({
  id: newId('chk'),
  position,
  ...checkOfStep(step),
  status: 'pending',
  verdict: null,
  score: null,
  providerTier: 'standard',
  reasonCodes: [],
  createdAt: now,
  updatedAt: now,
});

/** A pending session with its checks (a snapshot of the steps) and its events, in memory. */
export function buildSession(input: SessionInput): NewSession {
  const now = new Date();
  const v: NewVerification = {
    id: newId('vs'),
    status: 'pending',
    mode: input.mode,
    flow: { id: input.flow.id },
    flowSnapshot: snapshotOf(input.flow, input.flow.steps),
    verdict: null,
    score: null,
    reasonCodes: [],
    changeReason: null,
    declineType: null,
    identityVersion: 0,
    identityEditedAt: null,
    locale: input.locale,
    metadata: input.metadata,
    sandbox: input.sandbox,
    expiresAt: new Date(now.getTime() + input.ttlSeconds * 1000),
    createdAt: now,
    updatedAt: now,
    sequence: 0,
    apiKeyId: input.apiKeyId,
    consent: null,
    returnUrl: input.returnUrl ?? null,
    checks: input.flow.steps.map((step, position) => newCheck(step, position, now)),
  };
  const events: NewSession['events'] = [];
  // Each event carries the state and sequence it was written at, as recordVerificationEvent does.
  const record = (type: EventType) => {
    v.sequence += 1;
    events.push({ id: newId('evt'), type, payload: { verification: verificationEventData(v) } });
  };
  record('verification.created');
  record('verification.pending');
  if (input.processNow) {
    v.status = 'processing';
    record('verification.awaiting_service');
  }
  return { verification: v, clientToken: `vct_${randomBase62(40)}`, events, input };
}

/**
 * Tenant-bound (tenantSql): the rows take the account and environment from TENANT_ROW; `$3`-`$25`
 * the session's values, `$26`-`$29` the stored answer (IDEMPOTENCY_ANSWER). The grant it spends
 * is one of the account's and environment's.
 */
const INSERT_SESSION = `
with ${TENANT_ROW}, v as (
  insert into verifications (id, merchant_id, created_at, mode, updated_at, status, flow_id, flow_snapshot, reason_codes, identity_version,
    client_token_hash, locale, metadata, expires_at, sequence, sandbox, is_preview, api_key_id, identity,
    email_fingerprint, reference_fingerprint, document_fingerprint, national_id_fingerprint, document_expires_on, return_url)
  select $3, t.merchant_id, $4, t.mode, $4, $5, $6, $7::jsonb, '{}', 0, $8, $9, $10::jsonb, $11, $12, $13::jsonb, $24, $14, $15, $16, $17, $18, $19, $20::date, $25
  from tenant t
  returning id, merchant_id, mode
), c as (
  insert into checks (id, merchant_id, created_at, mode, updated_at, verification_id, position, type, required, sensitivity, threshold, config, status, provider_tier, reason_codes)
  select x.id, v.merchant_id, $4, v.mode, $4, v.id, x.position, x.type, x.required, x.sensitivity, x.threshold, coalesce(x.config, '{}'::jsonb), 'pending', 'standard', '{}'
  from v cross join jsonb_to_recordset($21::jsonb) as x(id text, position int, type text, required boolean, sensitivity float8, threshold float8, config jsonb)
), e as (
  insert into events (id, merchant_id, created_at, mode, updated_at, type, verification_id, api_key_id, payload, test)
  select x.id, v.merchant_id, $4, v.mode, $4, x.type, v.id, $14, x.payload, false
  from v cross join jsonb_to_recordset($22::jsonb) as x(id text, type text, payload jsonb)
), g as (
  update reverification_grants set spent_at = $4, spent_by_verification_id = $3, updated_at = $4
  where id = $23 and merchant_id = $1 and mode = any($2::text[])
), ${placeFragment(IDEMPOTENCY_ANSWER, 23)}
select 1`;

/**
 * Writes a new session on `sql` (the create's transaction), bound by tenantSql to the session's
 * account and environment.
 */
export async function insertSession(
  sql: RawSql,
  s: NewSession,
  grantId: string | null,
  answer: AnswerSlot | null,
): Promise<void> {
  const { verification: v, input } = s;
  const f = input.fingerprints;
  const checks = v.checks.map((c) => ({
    id: c.id,
    position: c.position,
    type: c.type,
    required: c.required,
    sensitivity: c.sensitivity,
    threshold: c.threshold,
    config: c.config,
  }));
  await tenantSql({ merchantId: input.merchantId, modes: [input.mode] }, sql).query(
    INSERT_SESSION,
    [
      v.id,
      v.createdAt,
      v.status,
      v.flow.id,
      JSON.stringify(v.flowSnapshot),
      sha256Hex(s.clientToken),
      v.locale,
      JSON.stringify(v.metadata),
      v.expiresAt,
      v.sequence,
      input.sandbox ? JSON.stringify(input.sandbox) : null,
      v.apiKeyId,
      input.identity,
      f.email,
      f.reference,
      f.document,
      f.nationalId,
      input.documentExpiresOn,
      JSON.stringify(checks),
      JSON.stringify(s.events),
      grantId,
      input.isPreview ?? false,
      v.returnUrl,
      ...answerParams(answer),
    ],
    'idv_insert_session',
  );
}
