import { ageRunner } from './age.js';
import { documentRunner } from './document.js';
import { faceMatchRunner, livenessRunner } from './face/runners.js';
import { type CheckRunner, result } from './types.js';

/** No sanctions list ships with the service: sandbox screens clean, live goes to a human. */
const amlRunner: CheckRunner = {
  type: 'aml',
  run: (input) => (input.sandbox ? result('approve', 1, [], 'sandbox') : result('review', 0, ['AML_SCREENING_UNAVAILABLE'])),
};

/** The email step is completed in the hosted flow; an address sent at create counts as given. */
const emailRunner: CheckRunner = {
  type: 'email',
  run: (input) => (input.identity.email ? result('approve', 1) : { status: 'skipped', verdict: null, score: null, reasonCodes: ['EMAIL_NOT_PROVIDED'], providerTier: 'standard' }),
};

export const RUNNERS: Record<string, CheckRunner> = {
  document: documentRunner,
  liveness: livenessRunner,
  face_match: faceMatchRunner,
  age: ageRunner,
  aml: amlRunner,
  email: emailRunner,
};
