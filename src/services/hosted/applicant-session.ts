import { timingSafeEqual } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sha256Hex } from '../../crypto.js';
import { Flow } from '../../entities/flow.entity.js';
import { Upload } from '../../entities/upload.entity.js';
import { Verification } from '../../entities/verification.entity.js';
import { ApiError, authenticationError, conflict } from '../../errors.js';
import type { Identity } from '../../engine/types.js';
import type { Logger } from '../../logger.js';
import { scopedFork, systemFork } from '../../orm.js';
import type { Runtime } from '../../runtime.js';
import { withLazyFork, type ServiceContext } from '../shared/index.js';
import { neededUploads } from '../verifications/index.js';

/** A request of the hosted page: the session its client token opened, and a context scoped to it. */
export interface ApplicantSession {
  ctx: ServiceContext;
  verificationId: string;
}

export interface RequestFields {
  runtime: Runtime;
  requestId: string;
  log: Logger;
}

const VERIFICATION_ID = /^vs_[0-9A-Za-z]{1,64}$/;
const CLIENT_TOKEN = /^vct_[0-9A-Za-z]{20,80}$/;

const invalidToken = () =>
  authenticationError(
    'CLIENT_TOKEN_INVALID',
    'This verification link is not valid (wrong, replaced or incomplete). Ask for a new link.',
  );

function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Opens the session a client token belongs to. Anything else (an unknown session, the
 * token of another session, a replaced token) is one 401 that names neither, so a token
 * cannot be used to learn which sessions exist. The context is scoped to the session's
 * account and environment, like a key's, so the verification services apply unchanged.
 */
export async function openApplicantSession(
  fields: RequestFields,
  verificationId: string,
  token: string | undefined,
): Promise<ApplicantSession> {
  if (!token || !CLIENT_TOKEN.test(token) || !VERIFICATION_ID.test(verificationId)) throw invalidToken();
  const row = await systemFork(fields.runtime.orm).findOne(
    Verification,
    { id: verificationId },
    { filters: false, fields: ['id', 'merchant', 'mode', 'clientTokenHash'] as never },
  );
  if (!row || !sameHash(row.clientTokenHash, sha256Hex(token))) throw invalidToken();
  const scope = { merchantId: row.merchant.id, modes: [row.mode] };
  const ctx = withLazyFork(
    { ...fields, merchantId: row.merchant.id, caller: { kind: 'system' }, modes: [row.mode] },
    () => scopedFork(fields.runtime.orm, scope),
  );
  return { ctx, verificationId };
}

/** Where the page stands: open for capture, submitted (checks running or done), expired, or declined (consent refused). */
export type HostedState = 'open' | 'submitted' | 'expired' | 'declined';

export function stateOf(v: Verification): HostedState {
  if (v.status === 'expired') return 'expired';
  if (v.status !== 'pending') return 'submitted';
  if (v.expiresAt.getTime() <= Date.now()) return 'expired';
  return v.consentDeclinedAt ? 'declined' : 'open';
}

/** The session, locked for the rest of the transaction when `lock` is set. */
export async function loadSession(
  em: EntityManager,
  id: string,
  options: { lock?: boolean; identity?: boolean } = {},
): Promise<Verification> {
  return em.findOneOrFail(
    Verification,
    { id },
    {
      refresh: true,
      ...(options.lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {}),
      ...(options.identity ? { populate: ['identity'] as never } : {}),
    },
  );
}

/** Writes only while the session is open: an expired one and a submitted one each say so. */
export function requireOpen(v: Verification): void {
  const state = stateOf(v);
  if (state === 'expired')
    throw conflict('SESSION_EXPIRED', 'This verification session has expired. Ask for a new link.');
  if (state === 'submitted')
    throw conflict('SESSION_SUBMITTED', 'This verification has already been submitted; nothing more can be changed.');
  if (state === 'declined')
    throw conflict(
      'CONSENT_DECLINED',
      'The applicant declined consent; this session takes nothing more and expires as usual.',
    );
}

export function identityOf(ctx: ServiceContext, v: Verification): Identity {
  return v.identity ? ctx.runtime.vault.decrypt<Identity>(v.identity) : {};
}

/** The page's steps, in the order the applicant takes them, from the flow's snapshot. */
export function stepsOf(v: Verification): string[] {
  const types = new Set(v.flowSnapshot.steps.map((s) => s.type));
  const need = neededUploads(v.flowSnapshot.steps);
  const steps: string[] = [];
  if (types.has('email')) steps.push('email');
  if (need.document) steps.push('document');
  if (need.selfie) steps.push('selfie');
  if (types.has('liveness')) steps.push('liveness');
  return steps;
}

/**
 * How the page runs the liveness step: the step's `config.mode`, `active` (the challenge's
 * prompts) by default in a hosted session; null without a liveness step.
 */
export function livenessModeOf(v: Verification): 'active' | 'passive' | null {
  const step = v.flowSnapshot.steps.find((s) => s.type === 'liveness');
  if (!step) return null;
  return (step.config as { mode?: string } | undefined)?.mode === 'passive' ? 'passive' : 'active';
}

export interface Progress {
  email_confirmed: boolean;
  document_type: string | null;
  document_front: boolean;
  document_back: boolean;
  selfie: boolean;
  liveness: boolean;
}

/** What the applicant has done so far (uploads completed, address confirmed). */
export async function progressOf(ctx: ServiceContext, v: Verification): Promise<Progress> {
  const uploads = await ctx.em.find(
    Upload,
    { verification: v.id, status: 'uploaded' },
    { orderBy: { createdAt: 'asc' } },
  );
  const documents = uploads.filter((u) => u.kind === 'document');
  const identity = v.identity ? identityOf(ctx, v) : {};
  return {
    email_confirmed: identity.email_confirmed === true,
    document_type: documents.at(-1)?.documentType ?? null,
    document_front: documents.some((u) => (u.side ?? 'front') === 'front'),
    document_back: documents.some((u) => u.side === 'back'),
    selfie: uploads.some((u) => u.kind === 'selfie'),
    // The clip, or a frame for every prompt of the session's current challenge.
    liveness: uploads.some((u) => u.kind === 'video') || challengeFramesComplete(identity.liveness_challenge, uploads),
  };
}

function challengeFramesComplete(challenge: Identity['liveness_challenge'], uploads: Upload[]): boolean {
  if (!challenge) return false;
  const seen = new Set(
    uploads.filter((u) => u.kind === 'selfie' && u.challengeId === challenge.id).map((u) => u.challengeStep),
  );
  return challenge.steps.every((_, i) => seen.has(i));
}

/** The hosted page's languages; a session locale outside them falls back to English. */
export const PAGE_LANGUAGES = ['en', 'de', 'fr', 'es'] as const;

export function pageLanguage(locale: string): string {
  const primary = locale.split('-')[0]!.toLowerCase();
  return (PAGE_LANGUAGES as readonly string[]).includes(primary) ? primary : 'en';
}

export interface Branding {
  brand_name: string | null;
  logo_url: string | null;
  accent_color: string | null;
  support_url: string | null;
  privacy_url: string | null;
}

/** The flow's branding as it is now (a rebrand reaches sessions already open). */
export async function brandingOf(ctx: ServiceContext, v: Verification): Promise<Branding> {
  const flow = await ctx.em.findOne(Flow, { id: v.flow.id }, { filters: false });
  const https = (url: string | null | undefined) => (url && /^https?:\/\//.test(url) ? url : null);
  return {
    brand_name: flow?.brandName ?? null,
    logo_url: https(flow?.logoUrl),
    accent_color: flow?.accentColor && /^#[0-9a-fA-F]{6}$/.test(flow.accentColor) ? flow.accentColor : null,
    support_url: https(flow?.supportUrl),
    privacy_url: flow?.privacyUrl && /^https:\/\//.test(flow.privacyUrl) ? flow.privacyUrl : null,
  };
}

export const isApiError = (error: unknown): error is ApiError => error instanceof ApiError;
