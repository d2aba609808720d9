/** Public face of the verifications domain: adapters import from here. */
export * from './applicant.service.js';
export * from './create-open.sql.js';
export * from './create-session.sql.js';
export * from './identity.js';
export * from './upload.service.js';
export * from './verification-lifecycle.js';
export * from './verification-page.js';
export * from './verification.service.js';
export * from './verification-read.js';
export * from './console-read.js';
export * from './identity-edit.js';
