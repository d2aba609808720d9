import type { EntityManager } from '@mikro-orm/postgresql';
import type { Identity } from '../engine/types.js';
import { ApplicantNotification } from '../entities/applicant-notification.entity.js';
import type { Verification } from '../entities/verification.entity.js';
import type { Runtime } from '../runtime.js';
import { knexOf } from './webhook-delivery.service.js';

/** What a mail transport is handed; the address is decrypted only at send time. */
export interface OutcomeEmail {
  notificationId: string;
  verificationId: string;
  to: string;
  decision: 'approve' | 'reject';
  locale: string;
}

/**
 * Queues the applicant's outcome email for a reviewer's approve or reject, in the decision's
 * transaction. Nothing is queued when no address was given: there is nobody to tell.
 */
export function queueOutcomeEmail(em: EntityManager, runtime: Runtime, verification: Verification, decision: 'approve' | 'reject'): void {
  if (!verification.emailFingerprint) return;
  em.persist(
    em.create(ApplicantNotification, {
      merchant: verification.merchant,
      mode: verification.mode,
      verificationId: verification.id,
      decision,
      sendAfter: new Date(Date.now() + runtime.config.outcomeEmailDelaySeconds * 1000),
    }),
  );
}

/** A reversed decision (reopen) drops the outcome email it had not sent yet; a sent one stays sent. */
export async function dropUnsentOutcomeEmails(em: EntityManager, verificationId: string): Promise<number> {
  return em.nativeUpdate(ApplicantNotification, { verificationId, status: 'pending' }, { status: 'dropped', droppedAt: new Date() });
}

/**
 * The built-in transport: no mail provider is configured in this service yet, so a sent
 * email is a log line naming the verification and the decision (never the address).
 */
export function logTransport(runtime: Runtime): (email: OutcomeEmail) => Promise<void> {
  return async (email) => runtime.log(`outcome email ${email.notificationId}: verification ${email.verificationId} ${email.decision} (${email.locale})`);
}

interface DueRow { id: string; verification_id: string; decision: 'approve' | 'reject'; identity: string | null; locale: string }

/**
 * Sends up to `limit` due outcome emails. Each row is marked sent in the statement that takes
 * it (skip locked, so several workers share the queue and none sends one twice).
 */
export async function sendDueOutcomeEmails(runtime: Runtime, limit = 200, transport = logTransport(runtime)): Promise<number> {
  const result = await knexOf(runtime).raw(
    `with due as (
       select id from applicant_notifications where status = 'pending' and send_after <= now()
       order by send_after limit ? for update skip locked)
     update applicant_notifications n set status = 'sent', sent_at = now(), updated_at = now()
     from due, verifications v where n.id = due.id and v.id = n.verification_id
     returning n.id, n.verification_id, n.decision, v.identity, v.locale`,
    [limit],
  );
  const rows: DueRow[] = result.rows;
  for (const row of rows) {
    // Retention may have purged the identity since the decision: there is no address left.
    const to = row.identity ? runtime.vault.decrypt<Identity>(row.identity).email : undefined;
    if (to) await transport({ notificationId: row.id, verificationId: row.verification_id, to, decision: row.decision, locale: row.locale });
  }
  return rows.length;
}
