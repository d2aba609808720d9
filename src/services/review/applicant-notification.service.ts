import type { EntityManager } from '@mikro-orm/postgresql';
import nodemailer from 'nodemailer';
import type { Identity } from '../../engine/types.js';
import { ApplicantNotification } from '../../entities/applicant-notification.entity.js';
import type { Verification } from '../../entities/verification.entity.js';
import { withConnection } from '../shared/index.js';
import type { Runtime } from '../../runtime.js';
import { outcomeMessage } from './outcome-messages.js';

/** What a mail transport is handed; the address is decrypted only at send time. */
export interface OutcomeEmail {
  notificationId: string;
  verificationId: string;
  to: string;
  decision: 'approve' | 'reject';
  locale: string;
  /** The reviewer's applicant_message, when one was written. */
  message?: string;
}

/**
 * Queues the applicant's outcome email for a reviewer's approve or reject, in the decision's
 * transaction. Nothing is queued when no address was given: there is nobody to tell.
 */
export function queueOutcomeEmail(
  em: EntityManager,
  runtime: Runtime,
  verification: Verification,
  decision: 'approve' | 'reject',
  message?: string,
): void {
  if (!verification.emailFingerprint) return;
  em.persist(
    em.create(ApplicantNotification, {
      merchant: verification.merchant,
      mode: verification.mode,
      verificationId: verification.id,
      decision,
      // Free text a reviewer wrote to the applicant may name them: stored encrypted like identity.
      message: message ? runtime.vault.encrypt({ text: message }) : null,
      sendAfter: new Date(Date.now() + runtime.config.outcomeEmailDelaySeconds * 1000),
    }),
  );
}

/** A reversed decision (reopen) drops the outcome email it had not sent yet; a sent one stays sent. */
export async function dropUnsentOutcomeEmails(em: EntityManager, verificationId: string): Promise<number> {
  return em.nativeUpdate(
    ApplicantNotification,
    { verificationId, status: 'pending' },
    { status: 'dropped', droppedAt: new Date() },
  );
}

/** Retries after a refused send, in seconds from the failed attempt; the row fails after the last. */
export const OUTCOME_EMAIL_RETRIES = [60, 300, 1800, 7200];
/** How long a taken row stays out of other senders' reach: a sender that died mid-send is retried after it. */
const SEND_LEASE_SECONDS = 300;

export type OutcomeTransport = (email: OutcomeEmail) => Promise<void>;

/**
 * Without SMTP_URL: a sent email is a log line naming the verification and the decision
 * (never the address), so a development setup needs no mail server.
 */
export function logTransport(runtime: Runtime): OutcomeTransport {
  return async (email) =>
    runtime.logger.info(
      `outcome email ${email.notificationId}: verification ${email.verificationId} ${email.decision} (${email.locale})`,
    );
}

/** SMTP_URL's server when one is configured (one transport per process), else the log line. */
export function transportFor(runtime: Runtime): OutcomeTransport {
  return (runtime.parts.outcomeTransport ??= runtime.config.smtpUrl
    ? smtpTransport(runtime.config.smtpUrl, runtime.config.mailFrom)
    : logTransport(runtime));
}

/** Sends through an SMTP server; resolves once the server accepted the message, rejects when it refused it. */
export function smtpTransport(url: string, from: string): OutcomeTransport {
  const mailer = nodemailer.createTransport(url);
  return async (email) => {
    const { subject, text, language } = outcomeMessage(email);
    await mailer.sendMail({ from, to: email.to, subject, text, headers: { 'Content-Language': language } });
  };
}

interface DueRow {
  id: string;
  verification_id: string;
  decision: 'approve' | 'reject';
  identity: string | null;
  locale: string;
  attempts: number;
  message: string | null;
}

/**
 * Sends up to `limit` due outcome emails. The statement that takes them pushes their
 * `send_after` out by a lease (skip locked: several workers share the queue and none takes a
 * row another holds); a row is marked sent only once the transport accepted it, and a
 * refusal schedules the next retry or, after the last, marks it failed. A sender that dies
 * mid-send leaves its rows to be taken again when the lease ends: at least once, never lost.
 */
export async function sendDueOutcomeEmails(
  runtime: Runtime,
  limit = 200,
  transport = transportFor(runtime),
): Promise<number> {
  const run = (text: string, params: unknown[]) =>
    withConnection(runtime.orm, (sql) => sql.query<DueRow>(text, params));
  const rows = await run(
    `with due as (
       select id from applicant_notifications where status = 'pending' and send_after <= now()
       order by send_after limit $1 for update skip locked)
     update applicant_notifications n
        set send_after = now() + make_interval(secs => $2), attempts = n.attempts + 1, updated_at = now()
     from due, verifications v where n.id = due.id and v.id = n.verification_id
     returning n.id, n.verification_id, n.decision, v.identity, v.locale, n.attempts, n.message`,
    [limit, SEND_LEASE_SECONDS],
  );
  for (const row of rows) {
    // Retention may have purged the identity since the decision: there is no address left.
    const to = row.identity ? runtime.vault.decrypt<Identity>(row.identity).email : undefined;
    if (!to) {
      await run(
        `update applicant_notifications set status = 'dropped', dropped_at = now(), updated_at = now() where id = $1 and status = 'pending'`,
        [row.id],
      );
      continue;
    }
    try {
      const message = row.message ? runtime.vault.decrypt<{ text: string }>(row.message).text : undefined;
      await transport({
        notificationId: row.id,
        verificationId: row.verification_id,
        to,
        decision: row.decision,
        locale: row.locale,
        message,
      });
    } catch (error) {
      await recordRefusal(runtime, row, error as Error);
      continue;
    }
    // A reopen while it was being sent has marked it dropped: it went out anyway, and stays dropped.
    await run(
      `update applicant_notifications set status = 'sent', sent_at = now(), last_error = null, updated_at = now() where id = $1 and status = 'pending'`,
      [row.id],
    );
  }
  return rows.length;
}

async function recordRefusal(runtime: Runtime, row: DueRow, error: Error): Promise<void> {
  // Mail servers echo the recipient in their refusals; the stored and logged reason never names it.
  const reason = (error.message || String(error)).replace(/[^\s<>@]+@[^\s<>@]+/g, '<address>').slice(0, 300);
  const retryIn = OUTCOME_EMAIL_RETRIES[row.attempts - 1];
  if (retryIn === undefined) {
    await withConnection(runtime.orm, (sql) =>
      sql.query(
        `update applicant_notifications set status = 'failed', failed_at = now(), last_error = $1, updated_at = now() where id = $2 and status = 'pending'`,
        [reason, row.id],
      ),
    );
    runtime.logger.warn(`outcome email ${row.id}: failed after ${row.attempts} attempts: ${reason}`);
    return;
  }
  await withConnection(runtime.orm, (sql) =>
    sql.query(
      `update applicant_notifications set send_after = now() + make_interval(secs => $1), last_error = $2, updated_at = now() where id = $3 and status = 'pending'`,
      [retryIn, reason, row.id],
    ),
  );
  runtime.logger.warn(`outcome email ${row.id}: attempt ${row.attempts} refused, retry in ${retryIn} s: ${reason}`);
}
