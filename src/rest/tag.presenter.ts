import type { Applicant } from '../entities/applicant.entity.js';
import type { Tag } from '../entities/tag.entity.js';
import type { TagReference } from '../services/catalog/index.js';
import type { UsageSummary } from '../services/reporting/index.js';
import type {
  ApplicantOut,
  TagOut,
  TagRefOut,
  TagReferenceListOut,
  TagRemovedOut,
  UsageSummaryOut,
} from '../contracts/index.js';
import { iso } from './presenters.js';

/** `/v1` JSON of tags, tag references, applicants and the usage summary. */
export function presentTag(tag: Tag, options: { retired?: boolean } = {}): TagOut {
  return {
    id: tag.id,
    object: 'tag',
    name: tag.name,
    slug: tag.slug,
    color: tag.color,
    description: tag.description ?? null,
    created_at: iso(tag.createdAt),
    updated_at: iso(tag.updatedAt),
    ...(options.retired ? { retired: true } : {}),
  };
}

export const presentTagReference = (ref: TagReference): TagRefOut => ({ id: ref.id, name: ref.name, color: ref.color });

/** The full set of tags on a verification or an applicant, in the list envelope. */
export function presentTagReferenceList(refs: TagReference[]): TagReferenceListOut {
  return { object: 'list', data: refs.map(presentTagReference), has_more: false, next_cursor: null };
}

export const presentTagRemoval = (tagId: string): TagRemovedOut => ({ id: tagId, object: 'tag', removed: true });

/** Non-sensitive metadata only: never identity or the person fingerprint. */
export function presentApplicant(applicant: Applicant): ApplicantOut {
  return {
    id: applicant.id,
    object: 'applicant',
    has_identity_link: applicant.hasIdentityLink,
    created_at: iso(applicant.createdAt),
    updated_at: iso(applicant.updatedAt),
  };
}

export function presentUsage(summary: UsageSummary): UsageSummaryOut {
  return {
    object: 'usage_summary',
    since: iso(summary.since),
    total: summary.total,
    billable: summary.billable,
    by_check_type: summary.byCheckType.map((r) => ({ check_type: r.checkType, count: r.count, billable: r.billable })),
  };
}
