import { ageRunner } from './age.js';
import { amlRunner } from './aml/runner.js';
import { documentRunner } from './document.js';
import { emailRunner } from './email.js';
import { imageAnalysisUnavailable, sandboxImageResult } from './sandbox.js';
import { type CheckInput, type CheckResult, type CheckRunner, result } from './types.js';

/** Liveness and face match need image analysis: sandbox simulates them, live says so honestly. */
const imageRunner = (type: string): CheckRunner => ({
  type,
  run: (input: CheckInput): CheckResult => (input.sandbox ? sandboxImageResult() : imageAnalysisUnavailable()),
});

export const RUNNERS: Record<string, CheckRunner> = {
  document: documentRunner,
  liveness: imageRunner('liveness'),
  face_match: imageRunner('face_match'),
  age: ageRunner,
  aml: amlRunner,
  email: emailRunner,
};
