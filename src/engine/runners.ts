import { ageRunner } from './age.js';
import { documentRunner } from './document.js';
import { imageAnalysisUnavailable, sandboxImageResult } from './sandbox.js';
import { type CheckInput, type CheckResult, type CheckRunner, result } from './types.js';

/** Liveness and face match need image analysis: sandbox simulates them, live says so honestly. */
const imageRunner = (type: string): CheckRunner => ({
  type,
  run: (input: CheckInput): CheckResult => (input.sandbox ? sandboxImageResult() : imageAnalysisUnavailable()),
});

/** No sanctions list ships with the service: sandbox screens clean, live goes to a human. */
const amlRunner: CheckRunner = {
  type: 'aml',
  run: (input) => (input.sandbox ? result('approve', 1, [], 'sandbox') : result('review', 0, ['AML_SCREENING_UNAVAILABLE'])),
};

/**
 * The email step is completed in the hosted flow, where a one-time code confirms the address
 * (full score); an address sent at create counts as given but unconfirmed.
 */
const emailRunner: CheckRunner = {
  type: 'email',
  run: (input) => {
    if (input.identity.email && input.identity.email_confirmed) return result('approve', 1);
    if (input.identity.email) return result('approve', 0.8);
    return { status: 'skipped', verdict: null, score: null, reasonCodes: ['EMAIL_NOT_PROVIDED'], providerTier: 'standard' };
  },
};

export const RUNNERS: Record<string, CheckRunner> = {
  document: documentRunner,
  liveness: imageRunner('liveness'),
  face_match: imageRunner('face_match'),
  age: ageRunner,
  aml: amlRunner,
  email: emailRunner,
};
