import type { Mode } from '../../config.js';
import type { Identity } from '../../engine/types.js';
import { ApiError, notFound } from '../../errors.js';
import { authorize } from '../access/index.js';
import { recordAudit } from '../audit/index.js';
import { narrowedTo, tenantSql, type Page, type PageParams, type ServiceContext } from '../shared/index.js';
import { applicantFields } from './identity.js';
import { readIncluded, type Included } from './verification-read.js';
import { identityOf } from './verification.service.js';
import { listVerificationItems, verificationItem, type VerificationListItem } from './verification-page.js';
import type { VerificationStatus } from '../../entities/verification.entity.js';

/** Evidence URLs handed to team members live two minutes (decisions.md). */
export const MEMBER_EVIDENCE_URL_SECONDS = 120;

/** Who settled a verification: a reviewer, a key's decision, or null for the engine or a policy. */
export type DecidedBy = { type: 'member' | 'api_key'; id: string } | null;

/** The console list: every environment the seat holds by default; one it lacks gives an empty list. */
export async function listConsoleVerifications(
  ctx: ServiceContext,
  filter: {
    status?: VerificationStatus;
    email?: string;
    tagId?: string;
    mode?: Mode;
    createdFrom?: Date;
    createdBefore?: Date;
  },
  params: PageParams,
): Promise<Page<VerificationListItem>> {
  const scoped = narrowedTo(ctx, filter.mode);
  if (!scoped) return { data: [], hasMore: false, nextCursor: null };
  const { status, email, tagId, createdFrom, createdBefore } = filter;
  return listVerificationItems(scoped, { status, email, tagId, createdFrom, createdBefore }, params);
}

export async function getConsoleVerification(ctx: ServiceContext, id: string): Promise<VerificationListItem> {
  const item = await verificationItem(ctx, id);
  if (!item) throw notFound('verification', id);
  return item;
}

/** decided_by of several verifications in one statement: the reviewer or key that resolved their case. */
export async function decidersOf(ctx: ServiceContext, ids: string[]): Promise<Map<string, DecidedBy>> {
  const out = new Map<string, DecidedBy>();
  if (ids.length === 0) return out;
  const rows = await tenantSql(ctx).query<{ verification_id: string; decided_by: string }>(
    `select distinct on (verification_id) verification_id, decided_by from manual_reviews
      where merchant_id = $1 and mode = any($2::text[]) and verification_id = any($3::text[]) and status = 'resolved' and decided_by is not null
      order by verification_id, reviewed_at desc`,
    [ids],
    'idv_deciders_of',
  );
  for (const row of rows) {
    const [kind, id] = row.decided_by.split(/:(.*)/s);
    if (kind === 'member' || kind === 'key')
      out.set(row.verification_id, { type: kind === 'key' ? 'api_key' : 'member', id: id! });
  }
  return out;
}

const unreadable = () =>
  new ApiError(
    500,
    'api_error',
    'IDENTITY_UNREADABLE',
    'The applicant data held for this verification cannot be read; nothing was revealed. Quote the request id to support.',
  );

/**
 * The fields read off the document (verifications.reveal), audited with the member and the
 * field names (never values). `fields` is null when nothing is held (never read, or purged);
 * data held but undecryptable is 500 IDENTITY_UNREADABLE, never an empty answer.
 */
export async function revealIdentity(
  ctx: ServiceContext,
  id: string,
): Promise<{ version: number; fields: Record<string, string> | null }> {
  await authorize(ctx, { permission: 'verifications.reveal' });
  const item = await getConsoleVerification(ctx, id);
  let identity: Identity | null;
  try {
    identity = await identityOf(ctx, item.id);
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw unreadable();
  }
  const fields = identity ? applicantFields(identity) : null;
  await recordAudit(ctx, {
    action: 'identity.revealed',
    mode: item.mode,
    verificationId: item.id,
    fieldNames: fields ? Object.keys(fields) : [],
  });
  return { version: Math.max(1, item.identityVersion), fields };
}

/** The evidence images with URLs valid two minutes (verifications.reveal), audited with how many. */
export async function viewEvidence(ctx: ServiceContext, id: string): Promise<NonNullable<Included['evidence']>> {
  await authorize(ctx, { permission: 'verifications.reveal' });
  const item = await getConsoleVerification(ctx, id);
  const { evidence = [] } = await readIncluded(ctx, item, ['documents'], MEMBER_EVIDENCE_URL_SECONDS);
  await recordAudit(ctx, {
    action: 'evidence.viewed',
    mode: item.mode,
    verificationId: item.id,
    imageCount: evidence.length,
  });
  return evidence;
}
