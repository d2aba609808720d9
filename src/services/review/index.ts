/** Public face of the review domain: adapters import from here. */
export * from './applicant-notification.service.js';
export * from './manual-review.service.js';
export * from './outcome-messages.js';
export * from './workbench.service.js';
export * from './escalation.service.js';
export * from './decision.schema.js';
