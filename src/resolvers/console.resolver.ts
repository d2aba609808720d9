import { GraphQLJSONObject } from 'graphql-scalars';
import { Arg, Authorized, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import {
  ActivityConnection,
  type ActivityType,
  AuditEventConnection,
  type AuditEventType,
  EvidenceImageType,
  IdentityEditType,
  RevealedIdentityType,
  VerificationEventType,
} from '../schema/console.types.js';
import { listActivity, listAudit, listVerificationEvents } from '../services/audit/index.js';
import { checkedCursor, parseInput, type ServiceContext } from '../services/shared/index.js';
import { editIdentity, identityEditInput, revealIdentity, viewEvidence } from '../services/verifications/index.js';
import { pageSize } from './api-key.resolver.js';
import { type Source, type Connection, connectionOf } from './source.js';
import { parameterInvalid } from '../errors.js';

const AUDIT_ID = /^aud_[0-9A-Za-z]+$/;
const ACTIVITY_ID = /^act_[0-9A-Za-z]+$/;

/** Audited reveals and the team's trails for team members, through the same services as /v1/console. */
@Resolver()
export class ConsoleResolver {
  @Authorized('verifications.reveal')
  @Query(() => RevealedIdentityType, {
    description: 'The fields read off the document (audited); IDENTITY_UNREADABLE when held but unreadable.',
  })
  async revealIdentity(
    @Ctx() ctx: ServiceContext,
    @Arg('verificationId', () => ID) verificationId: string,
  ): Promise<Source<RevealedIdentityType>> {
    return { verificationId, ...(await revealIdentity(ctx, verificationId)) };
  }

  @Authorized('verifications.reveal')
  @Mutation(() => IdentityEditType, {
    description:
      'Corrects applicant data: send the changed fields only (null removes one) and the version read; STALE_VERSION otherwise. Emits verification.data_updated.',
  })
  async editIdentity(
    @Ctx() ctx: ServiceContext,
    @Arg('verificationId', () => ID) verificationId: string,
    @Arg('fields', () => GraphQLJSONObject, {
      description: 'applicant field names as revealIdentity answers them (first_name, date_of_birth, ...)',
    })
    fields: Record<string, unknown>,
    @Arg('version', () => Int) version: number,
  ): Promise<Source<IdentityEditType>> {
    const edited = await editIdentity(ctx, verificationId, parseInput(identityEditInput, { fields, version }));
    return {
      verificationId,
      version: edited.version,
      changedFields: edited.changedFields,
      identityEditedAt: edited.editedAt,
    };
  }

  @Authorized('verifications.reveal')
  @Query(() => [EvidenceImageType], { description: 'Evidence images with two-minute URLs (audited with the count).' })
  async evidence(
    @Ctx() ctx: ServiceContext,
    @Arg('verificationId', () => ID) verificationId: string,
  ): Promise<Source<EvidenceImageType>[]> {
    const images = await viewEvidence(ctx, verificationId);
    return images.map(({ upload, url, expiresIn }) => ({
      id: upload.id,
      kind: upload.kind,
      side: upload.side ?? null,
      url,
      urlExpiresIn: expiresIn,
    }));
  }

  @Authorized()
  @Query(() => AuditEventConnection, {
    description: 'The audit trail, newest first; verificationId and memberId narrow it.',
  })
  async auditEvents(
    @Ctx() ctx: ServiceContext,
    @Arg('first', () => Int, { nullable: true }) first?: number,
    @Arg('after', () => String, { nullable: true }) after?: string,
    @Arg('verificationId', () => ID, { nullable: true }) verificationId?: string,
    @Arg('memberId', () => ID, { nullable: true }) memberId?: string,
  ): Promise<Connection<Source<AuditEventType>>> {
    const page = await listAudit(
      ctx,
      { limit: pageSize(first), startingAfter: checkedCursor(after, AUDIT_ID) },
      { subjectIds: verificationId ? [verificationId] : null, memberId },
    );
    return connectionOf(page);
  }

  @Authorized()
  @Query(() => ActivityConnection, {
    description:
      'Team activity, newest first; targetIds (a case: its verification and review ids) and memberId narrow it.',
  })
  async activity(
    @Ctx() ctx: ServiceContext,
    @Arg('first', () => Int, { nullable: true }) first?: number,
    @Arg('after', () => String, { nullable: true }) after?: string,
    @Arg('targetIds', () => [ID], { nullable: true }) targetIds?: string[],
    @Arg('memberId', () => ID, { nullable: true }) memberId?: string,
  ): Promise<Connection<Source<ActivityType>>> {
    if (targetIds && targetIds.length > 20) throw parameterInvalid('targetIds', 'at most 20 ids.');
    const page = await listActivity(
      ctx,
      { limit: pageSize(first), startingAfter: checkedCursor(after, ACTIVITY_ID) },
      { subjectIds: targetIds ?? null, memberId },
    );
    return connectionOf(page);
  }

  @Authorized()
  @Query(() => [VerificationEventType], {
    description: 'The events of one verification, oldest first (at most 200): its timeline beside activity and audit.',
  })
  async verificationEvents(
    @Ctx() ctx: ServiceContext,
    @Arg('verificationId', () => ID) verificationId: string,
  ): Promise<Source<VerificationEventType>[]> {
    return listVerificationEvents(ctx, verificationId);
  }
}
