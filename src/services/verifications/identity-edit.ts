import { LockMode } from '@mikro-orm/core';
import { z } from 'zod';
import type { DocumentRead, Identity } from '../../engine/types.js';
import { Verification } from '../../entities/verification.entity.js';
import { conflict, notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import { authorize } from '../access/index.js';
import { recordActivity, recordAudit } from '../audit/index.js';
import { rawSqlOf, tenantSql, type ServiceContext } from '../shared/index.js';
import { recordVerificationEvent } from '../webhooks/index.js';
import { fingerprintsOf } from './identity.js';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const text = z.string().trim().min(1).max(200);
const date = z
  .string()
  .regex(DATE, 'must be a date (YYYY-MM-DD)')
  .refine((d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)), 'must be a real date');
const country = z
  .string()
  .regex(/^[A-Za-z]{2,3}$/, 'must be an ISO 3166 country code')
  .transform((c) => c.toUpperCase());

/**
 * The applicant fields a team member may correct (the keys of `applicant.fields`), each a value
 * or null to remove it. Only changed keys are sent.
 */
const editableFields = z
  .strictObject({
    first_name: text.nullable().optional(),
    last_name: text.nullable().optional(),
    date_of_birth: date.nullable().optional(),
    sex: z.enum(['F', 'M', 'X']).nullable().optional(),
    nationality: country.nullable().optional(),
    document_type: z.enum(['passport', 'id_card', 'driving_licence', 'residence_permit']).nullable().optional(),
    document_number: text.max(64).nullable().optional(),
    issuing_country: country.nullable().optional(),
    expiry_date: date.nullable().optional(),
    national_id: text.max(64).nullable().optional(),
    address: z.string().trim().min(1).max(500).nullable().optional(),
    email: z.string().trim().email().max(254).nullable().optional(),
  })
  .refine((fields) => Object.keys(fields).length > 0, 'fields must name at least one field to change');

/** PATCH /v1/console/verifications/{id}/identity and GraphQL editIdentity (decisions.md, Back office). */
export const identityEditInput = z.strictObject({
  /** The changed keys only; null removes a field. */
  fields: editableFields,
  /** The identity version read (GET .../identity answers it); another one is 409 STALE_VERSION. */
  version: z.number().int().min(1),
});
export type IdentityEditInput = z.infer<typeof identityEditInput>;
type EditableKey = keyof z.infer<typeof editableFields>;

/** Where each `applicant.fields` key lives in the stored identity. */
const DOCUMENT_KEY: Partial<Record<EditableKey, keyof DocumentRead>> = {
  first_name: 'first_name',
  last_name: 'last_name',
  date_of_birth: 'date_of_birth',
  sex: 'sex',
  nationality: 'nationality',
  document_type: 'type',
  document_number: 'number',
  issuing_country: 'issuing_country',
  expiry_date: 'expiry_date',
  national_id: 'national_id',
  address: 'address',
};

/** The identity with the edit applied, and the names of the fields whose value changed. */
export function applyIdentityEdit(
  current: Identity,
  fields: IdentityEditInput['fields'],
): { identity: Identity; changed: string[] } {
  const document: Record<string, string | undefined> = { ...(current.document ?? {}) } as Record<
    string,
    string | undefined
  >;
  const identity: Identity = { ...current };
  const changed: string[] = [];
  for (const [key, value] of Object.entries(fields) as [EditableKey, string | null | undefined][]) {
    if (value === undefined) continue;
    const next = value ?? undefined;
    if (key === 'email') {
      if (identity.email !== next) {
        changed.push(key);
        // An address the team typed was not confirmed by the applicant's email code.
        delete identity.email_confirmed;
      }
      identity.email = next;
      continue;
    }
    const path = DOCUMENT_KEY[key]!;
    if (document[path] !== next) changed.push(key);
    document[path] = next;
  }
  const kept = Object.fromEntries(Object.entries(document).filter(([, v]) => v !== undefined));
  identity.document = Object.keys(kept).length > 0 ? (kept as DocumentRead) : undefined;
  if (identity.email === undefined) delete identity.email;
  return { identity, changed };
}

export interface IdentityEditResult {
  version: number;
  changedFields: string[];
  editedAt: Date;
}

/**
 * A team edit of applicant data: under the verification's row lock, a `version` other than the
 * current one applies nothing (409 STALE_VERSION); otherwise the new identity becomes the
 * current one (encrypted), the previous and the new version are kept in `identity_versions` with
 * their fingerprints (the verification's own fingerprints, those of what was read, never
 * change), `identity_version` and `identity_edited_at` move on, and `verification.data_updated`
 * carries the field names and the version only. Status, verdict and score never change. An edit
 * that changes no value applies nothing and answers the current version.
 */
export async function editIdentity(
  ctx: ServiceContext,
  id: string,
  input: IdentityEditInput,
): Promise<IdentityEditResult> {
  await authorize(ctx, { permission: 'verifications.reveal', write: true });
  const { vault } = ctx.runtime;
  return ctx.em.transactional(async (tx) => {
    const v = await tx.findOne(
      Verification,
      { id },
      { lockMode: LockMode.PESSIMISTIC_WRITE, populate: ['identity'] as never, refresh: true },
    );
    if (!v) throw notFound('verification', id);
    const current = Math.max(1, v.identityVersion);
    if (input.version !== current) {
      throw conflict(
        'STALE_VERSION',
        `The applicant data was edited since version ${input.version}; read it again and resubmit with version ${current}.`,
        {
          param: 'version',
          detail: { current_version: current },
        },
      );
    }
    const before: Identity = v.identity ? vault.decrypt<Identity>(v.identity) : {};
    const { identity, changed } = applyIdentityEdit(before, input.fields);
    if (changed.length === 0)
      return { version: current, changedFields: [], editedAt: v.identityEditedAt ?? v.createdAt };
    const sql = tenantSql(ctx, rawSqlOf(tx));
    const member = ctx.caller.kind === 'member' ? ctx.caller.memberId : null;
    const keep = async (version: number, held: Identity, editedBy: string | null) => {
      const f = fingerprintsOf(vault, held);
      await sql.query(
        `insert into identity_versions (id, merchant_id, mode, verification_id, version, identity, email_fingerprint, reference_fingerprint,
                                        document_fingerprint, national_id_fingerprint, edited_by, created_at)
         select $3, $1, v.mode, v.id, $5, $6, $7, $8, $9, $10, $11, now() from verifications v
          where v.id = $4 and v.merchant_id = $1 and v.mode = any($2::text[])
         on conflict (verification_id, version) do nothing`,
        [newId('idv'), v.id, version, vault.encrypt(held), f.email, f.reference, f.document, f.nationalId, editedBy],
        'idv_keep_identity_version',
      );
    };
    // Version 1 is what was read off the document: kept once, before the first edit replaces it.
    if (current === 1) await keep(1, before, null);
    const version = current + 1;
    await keep(version, identity, member);
    v.identity = vault.encrypt(identity);
    v.identityVersion = version;
    v.identityEditedAt = new Date();
    recordVerificationEvent(tx, v, 'verification.data_updated', { changed_fields: changed, version });
    await tx.flush();
    await recordAudit(
      ctx,
      { action: 'identity.edited', mode: v.mode, verificationId: v.id, fieldNames: changed },
      rawSqlOf(tx),
    );
    await recordActivity(
      ctx,
      { action: 'identity.edited', mode: v.mode, targetType: 'verification', targetId: v.id },
      rawSqlOf(tx),
    );
    return { version, changedFields: changed, editedAt: v.identityEditedAt };
  });
}
