import { randomInt } from 'node:crypto';
import nodemailer from 'nodemailer';
import { sha256Hex } from '../../crypto.js';
import type { EmailChallenge, Identity } from '../../engine/types.js';
import { invalidRequest } from '../../errors.js';
import type { Runtime } from '../../runtime.js';
import { normaliseEmailForMatch } from '../shared/index.js';
import { sealIdentity } from '../verifications/index.js';
import { identityOf, loadSession, pageLanguage, requireOpen, type ApplicantSession } from './applicant-session.js';
import { codeMessage } from './email-messages.js';

/** A code lives 10 minutes and takes 5 wrong guesses; a session sends at most 5 codes, 30 s apart. */
export const EMAIL_CODE_TTL_SECONDS = 600;
const MAX_ATTEMPTS = 5;
const MAX_SENDS = 5;
const RESEND_AFTER_MS = 30_000;
/** What the page types in a preview, where no email is sent. */
export const PREVIEW_CODE = '000000';

export interface EmailStepAnswer {
  email_sent: boolean;
  expires_in: number;
  confirmed: boolean;
  preview: boolean;
}

/**
 * Sends the code through SMTP_URL's server. Without one, a sandbox session's code is written
 * to the log so a development setup can finish the flow; a live code never is.
 */
async function sendCode(
  runtime: Runtime,
  to: string,
  code: string,
  language: string,
  sandbox: boolean,
  verificationId: string,
): Promise<void> {
  if (!runtime.config.smtpUrl) {
    runtime.logger.info(
      `email code for verification ${verificationId}${sandbox ? `: ${code}` : ' (live: not logged)'}; set SMTP_URL to send it`,
    );
    return;
  }
  const transport = (runtime.parts.codeTransport ??= nodemailer.createTransport(runtime.config.smtpUrl));
  const { subject, text } = codeMessage(language, code);
  await transport.sendMail({
    from: runtime.config.mailFrom,
    to,
    subject,
    text,
    headers: { 'Content-Language': language },
  });
}

const hashCode = (verificationId: string, code: string) => sha256Hex(`${verificationId}:${code}`);

function refuseResend(challenge: EmailChallenge | undefined): void {
  if (!challenge) return;
  if (challenge.sends >= MAX_SENDS)
    throw invalidRequest('EMAIL_CODE_LIMIT', 'Too many codes were sent for this session.');
  if (Date.now() - Date.parse(challenge.last_sent_at) < RESEND_AFTER_MS) {
    throw invalidRequest(
      'EMAIL_CODE_TOO_SOON',
      'A code was sent moments ago; wait 30 seconds before asking for another.',
    );
  }
}

/**
 * The email step, part one: a six-digit code to the address the applicant typed. The
 * challenge (address, code hash, counters) is kept inside the encrypted identity.
 */
export async function startEmailStep(session: ApplicantSession, email: string): Promise<EmailStepAnswer> {
  const { ctx } = session;
  const address = email.trim();
  let sent: { code: string; v: { id: string; locale: string; mode: string } } | undefined;
  await ctx.em.transactional(async (em) => {
    const v = await loadSession(em, session.verificationId, { lock: true, identity: true });
    requireOpen(v);
    if (v.isPreview) return;
    const identity = identityOf(ctx, v);
    refuseResend(identity.email_challenge);
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const now = new Date();
    identity.email_challenge = {
      email: address,
      code_hash: hashCode(v.id, code),
      expires_at: new Date(now.getTime() + EMAIL_CODE_TTL_SECONDS * 1000).toISOString(),
      attempts: 0,
      sends: (identity.email_challenge?.sends ?? 0) + 1,
      last_sent_at: now.toISOString(),
    };
    v.identity = ctx.runtime.vault.encrypt(identity);
    sent = { code, v: { id: v.id, locale: v.locale, mode: v.mode } };
  });
  if (!sent) return { email_sent: false, expires_in: EMAIL_CODE_TTL_SECONDS, confirmed: false, preview: true };
  try {
    await sendCode(ctx.runtime, address, sent.code, pageLanguage(sent.v.locale), sent.v.mode === 'sandbox', sent.v.id);
  } catch (error) {
    ctx.log.warn({ err: error }, `email code for ${sent.v.id} was not accepted by the mail server`);
    throw invalidRequest('EMAIL_NOT_SENT', 'The code could not be sent to this address. Check it and try again.', {
      param: 'email',
    });
  }
  return { email_sent: true, expires_in: EMAIL_CODE_TTL_SECONDS, confirmed: false, preview: false };
}

function checkCode(challenge: EmailChallenge | undefined, verificationId: string, code: string): 'ok' | 'wrong' {
  if (!challenge) throw invalidRequest('EMAIL_CODE_MISSING', 'Ask for a code first.');
  if (Date.parse(challenge.expires_at) <= Date.now())
    throw invalidRequest('EMAIL_CODE_EXPIRED', 'This code has expired; ask for a new one.', { param: 'code' });
  if (challenge.attempts >= MAX_ATTEMPTS)
    throw invalidRequest('EMAIL_CODE_EXPIRED', 'Too many wrong codes; ask for a new one.', { param: 'code' });
  return hashCode(verificationId, code) === challenge.code_hash ? 'ok' : 'wrong';
}

/**
 * The email step, part two: the right code confirms the address. It becomes the identity's
 * `email` with `email_confirmed` (the email check's full score) and its fingerprint is
 * stored, so the lookup finds the verification by it (lookup rule 4).
 */
export async function confirmEmailStep(session: ApplicantSession, code: string): Promise<EmailStepAnswer> {
  const { ctx } = session;
  const outcome = await ctx.em.transactional(async (em) => {
    const v = await loadSession(em, session.verificationId, { lock: true, identity: true });
    requireOpen(v);
    if (v.isPreview) return code === PREVIEW_CODE ? 'preview' : 'wrong';
    const identity: Identity = identityOf(ctx, v);
    const verdict = checkCode(identity.email_challenge, v.id, code);
    if (verdict === 'wrong') {
      identity.email_challenge!.attempts += 1;
      v.identity = ctx.runtime.vault.encrypt(identity);
      return 'wrong';
    }
    identity.email = identity.email_challenge!.email;
    identity.email_confirmed = true;
    delete identity.email_challenge;
    const sealed = sealIdentity(ctx.runtime.vault, identity);
    v.identity = sealed.ciphertext;
    v.emailFingerprint = ctx.runtime.vault.fingerprint('email', normaliseEmailForMatch(identity.email));
    return 'confirmed';
  });
  if (outcome === 'wrong')
    throw invalidRequest('EMAIL_CODE_INVALID', 'That code is not right. Check the email and try again.', {
      param: 'code',
    });
  return { email_sent: false, expires_in: 0, confirmed: true, preview: outcome === 'preview' };
}
