import { ageRunner } from './age.js';
import { amlRunner } from './aml/runner.js';
import { documentRunner } from './document.js';
import { emailRunner } from './email.js';
import { faceMatchRunner, livenessRunner } from './face/runners.js';
import type { CheckRunner } from './types.js';

export const RUNNERS: Record<string, CheckRunner> = {
  document: documentRunner,
  liveness: livenessRunner,
  face_match: faceMatchRunner,
  age: ageRunner,
  aml: amlRunner,
  email: emailRunner,
};
