import type { Upload } from '../../entities/upload.entity.js';
import type { ServiceContext } from '../shared/index.js';
import { applicantFields } from './identity.js';
import { checksOfVerifications, type CheckItem, type VerificationListItem } from './verification-page.js';
import { tagReferencesFor, type TagReference } from '../catalog/index.js';
import { identityOf, uploadedEvidence, type Include } from './verification.service.js';

/** Evidence URLs handed to API keys live five minutes. */
export const KEY_EVIDENCE_URL_SECONDS = 300;

/** What `include=` adds to one verification: its decrypted applicant data and/or its evidence with short-lived URLs. */
export interface Included {
  applicant?: { version: number; fields: Record<string, string> | null };
  evidence?: { upload: Upload; url: string; expiresIn: number }[];
}

/** Reads what `include=` asks for (the caller has been authorised for it). */
export async function readIncluded(
  ctx: ServiceContext,
  v: Pick<VerificationListItem, 'id' | 'identityVersion'>,
  include: Include[],
  urlSeconds = KEY_EVIDENCE_URL_SECONDS,
): Promise<Included> {
  const included: Included = {};
  if (include.includes('applicant')) {
    const identity = await identityOf(ctx, v.id);
    included.applicant = {
      version: Math.max(1, v.identityVersion),
      fields: identity ? applicantFields(identity) : null,
    };
  }
  if (include.includes('documents')) {
    const uploads = await uploadedEvidence(ctx, v.id);
    included.evidence = await Promise.all(
      uploads.map(async (upload) => ({
        upload,
        url: await ctx.runtime.storage.presignGet(ctx.runtime.storage.evidenceKey(upload), urlSeconds),
        expiresIn: urlSeconds,
      })),
    );
  }
  return included;
}

/** The checks and tag references of plain verification items, two statements for any number of them. */
export async function relationsOf(
  ctx: ServiceContext,
  ids: string[],
): Promise<{ checks: Map<string, CheckItem[]>; tags: Map<string, TagReference[]> }> {
  const [checks, tags] = [await checksOfVerifications(ctx, ids), await tagReferencesFor(ctx, ids)];
  return { checks, tags };
}
