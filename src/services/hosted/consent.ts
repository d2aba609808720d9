import { AccountSettings } from '../../entities/account-settings.entity.js';
import type { Verification } from '../../entities/verification.entity.js';
import { conflict, invalidRequest } from '../../errors.js';
import { recordActivity } from '../audit/index.js';
import { rawSqlOf, type ServiceContext } from '../shared/index.js';
import { loadSession, pageLanguage, requireOpen, type ApplicantSession } from './applicant-session.js';

/**
 * The version of the consent text the page shows (i18n.js `consent.*`). Change it with the
 * words, so a recorded consent always names the text the applicant read.
 */
export const CONSENT_VERSION = '2026-11-26';

/** Where the applicant stands on consent: asked, given, or declined (their part is over). */
export type ConsentState = 'required' | 'given' | 'declined';

export interface ConsentView {
  state: ConsentState;
  version: string;
  /** How long the account keeps identity and images (account settings, decisions.md). */
  retentionDays: number;
}

export function consentStateOf(v: Verification): ConsentState {
  if (v.consent) return 'given';
  return v.consentDeclinedAt ? 'declined' : 'required';
}

export async function consentViewOf(ctx: ServiceContext, v: Verification): Promise<ConsentView> {
  const settings = await ctx.em.findOne(AccountSettings, { merchant: v.merchant.id });
  return { state: consentStateOf(v), version: CONSENT_VERSION, retentionDays: settings?.retentionDays ?? 1095 };
}

/** Capture and submit need the applicant's consent first (a preview records nothing, so asks nothing). */
export function requireConsent(v: Verification): void {
  if (v.isPreview || v.consent) return;
  throw conflict('CONSENT_REQUIRED', 'The applicant has not given consent yet; nothing can be captured before it.');
}

/**
 * The applicant agrees to the text of `version` in the session's language: recorded once as
 * `consent` {version, language, given_at}; agreeing again keeps the first record.
 */
export async function giveConsent(session: ApplicantSession, version: string): Promise<void> {
  const { ctx } = session;
  if (version !== CONSENT_VERSION) {
    throw invalidRequest(
      'PARAMETER_INVALID',
      `The consent text shown is out of date (current version ${CONSENT_VERSION}); reload the page.`,
      { param: 'version' },
    );
  }
  await ctx.em.transactional(async (em) => {
    const v = await loadSession(em, session.verificationId, { lock: true });
    requireOpen(v);
    if (v.isPreview || v.consent) return;
    v.consent = { version, language: pageLanguage(v.locale), given_at: new Date().toISOString() };
  });
}

/**
 * The applicant declines: their part is over. The session stays pending and expires as usual
 * with CONSENT_DECLINED; the decline is an activity row (surface `hosted`), never identity.
 * A consent given earlier on this page is withdrawn with it.
 */
export async function declineConsent(session: ApplicantSession): Promise<void> {
  const { ctx } = session;
  await ctx.em.transactional(async (em) => {
    const v = await loadSession(em, session.verificationId, { lock: true });
    requireOpen(v);
    if (v.isPreview) return;
    v.consent = null;
    v.consentDeclinedAt = new Date();
    await em.flush();
    await recordActivity(
      { ...ctx, em, surface: 'hosted' },
      { action: 'consent.declined', mode: v.mode, targetType: 'verification', targetId: v.id },
      rawSqlOf(em),
    );
  });
}
