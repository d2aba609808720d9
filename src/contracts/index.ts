/** The output contracts: one zod schema per `/v1` body (see common.ts). */
export * from './common.js';
export * from './account.js';
export * from './audit.js';
export * from './flow.js';
export * from './hosted.js';
export * from './logs.js';
export * from './reporting.js';
export * from './review.js';
export * from './tag.js';
export * from './upload.js';
export * from './verification.js';
export * from './webhook.js';
