import { CHALLENGE_TTL_SECONDS, newChallenge } from '../../engine/face/challenge.js';
import type { LivenessChallenge } from '../../engine/types.js';
import { invalidRequest, parameterInvalid } from '../../errors.js';
import { identityOf, loadSession, requireOpen, type ApplicantSession } from './applicant-session.js';
import { requireConsent } from './consent.js';

export interface LivenessChallengeAnswer {
  challenge_id: string;
  /** What the page asks for, in order: `face_camera`, then `turn_left`, `turn_right`, `blink` in a random order. */
  steps: string[];
  expires_in: number;
  preview: boolean;
}

/**
 * Active liveness, step one: a new random challenge bound to the session (kept sealed in its
 * identity, replacing any earlier one, so frames captured for an earlier challenge no longer
 * count). The page then asks for one upload URL per frame with `challenge_step`. A preview gets
 * a challenge that is not kept.
 */
export async function issueLivenessChallenge(session: ApplicantSession): Promise<LivenessChallengeAnswer> {
  const { ctx } = session;
  const challenge = newChallenge();
  let preview = false;
  await ctx.em.transactional(async (em) => {
    const v = await loadSession(em, session.verificationId, { lock: true, identity: true });
    requireOpen(v);
    // A challenge starts biometric capture: consent comes first (409 CONSENT_REQUIRED).
    requireConsent(v);
    if (v.isPreview) {
      preview = true;
      return;
    }
    const identity = identityOf(ctx, v);
    identity.liveness_challenge = challenge;
    v.identity = ctx.runtime.vault.encrypt(identity);
  });
  return { challenge_id: challenge.id, steps: challenge.steps, expires_in: CHALLENGE_TTL_SECONDS, preview };
}

/**
 * The challenge a frame upload is bound to: the session's current challenge, still open, with
 * `step` one of its steps; refused otherwise (the frame could not count).
 */
export function challengeForFrame(
  _session: ApplicantSession,
  identity: ReturnType<typeof identityOf>,
  step: number,
): LivenessChallenge {
  const challenge = identity.liveness_challenge;
  if (!challenge)
    throw invalidRequest('LIVENESS_CHALLENGE_MISSING', 'Ask for a liveness challenge first.', {
      param: 'challenge_step',
    });
  if (Date.parse(challenge.expires_at) <= Date.now())
    throw invalidRequest('LIVENESS_CHALLENGE_EXPIRED', 'This liveness challenge has expired; ask for a new one.', {
      param: 'challenge_step',
    });
  if (!Number.isInteger(step) || step < 0 || step >= challenge.steps.length)
    throw parameterInvalid('challenge_step', `challenge_step must be 0..${challenge.steps.length - 1}.`);
  return challenge;
}
