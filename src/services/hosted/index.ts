/** Public face of the hosted applicant page's domain: the client-token API behind /verify. */
export * from './applicant-session.js';
export * from './client-token.js';
export * from './consent.js';
export * from './email-step.js';
export * from './hosted.service.js';
export * from './liveness-step.js';
