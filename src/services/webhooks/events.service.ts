import type { EntityManager } from '@mikro-orm/postgresql';
import { Event } from '../../entities/event.entity.js';
import { Merchant } from '../../entities/merchant.entity.js';
import type { Verification } from '../../entities/verification.entity.js';
import type { ServiceContext } from '../shared/index.js';

/** Every event name of the spec's catalogue (webhook endpoints subscribe to these). */
export const EVENT_TYPES = [
  'verification.created',
  'verification.pending',
  'verification.awaiting_service',
  'verification.completed',
  'verification.approved',
  'verification.rejected',
  'verification.review',
  'verification.expired',
  'verification.corrected',
  'verification.data_updated',
  'verification.already_verified',
  'check.completed',
  'fraud_network.created',
  'fraud_network.modified',
  'action.reviewed',
  'action.on_hold',
  'action.pending',
  'verification.tag_added',
  'verification.tag_removed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** What an event says about its verification: an entity, or a row the create path wrote itself. */
export type EventSubject = Pick<
  Verification,
  'id' | 'status' | 'verdict' | 'declineType' | 'reasonCodes' | 'changeReason' | 'sequence'
> & { flow: { id: string } };

/** The verification part of an event's `data` (decisions.md): ids and outcome facts, never identity. */
export function verificationEventData(v: EventSubject): Record<string, unknown> {
  return {
    id: v.id,
    status: v.status,
    verdict: v.verdict ?? null,
    decline_type: v.declineType ?? null,
    reason_codes: [...v.reasonCodes],
    changeReason: v.changeReason ?? null,
    flow: v.flow.id,
    sequence: v.sequence,
  };
}

/** Whose traffic caused an event, for webhook `api_key_ids` routing: by default the key that created the verification. */
export interface EventSource {
  /** The key whose call caused the event (null: a team member's or the system's action). */
  apiKeyId?: string | null;
}

/** The key of a key-authenticated caller; null for members and the system. */
export const callerKeyId = (ctx: ServiceContext): string | null =>
  ctx.caller.kind === 'key' ? ctx.caller.keyId : null;

/**
 * Writes an event about a verification into the outbox, in the caller's transaction. Bumps
 * the verification's `sequence` first, so every event carries a number larger than the last.
 */
export function recordVerificationEvent(
  em: EntityManager,
  verification: Verification,
  type: EventType,
  extra: Record<string, unknown> = {},
  source: EventSource = {},
): Event {
  verification.sequence += 1;
  return em.create(Event, {
    merchant: em.getReference(Merchant, verification.merchant.id),
    mode: verification.mode,
    type,
    verificationId: verification.id,
    apiKeyId: source.apiKeyId !== undefined ? source.apiKeyId : (verification.apiKeyId ?? null),
    payload: { verification: verificationEventData(verification), ...extra },
  });
}
