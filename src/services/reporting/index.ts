/** Public face of the reporting domain: adapters import from here. */
export * from './usage.service.js';
export * from './overview.service.js';
export * from './time-to-decision.service.js';
export * from './persons.service.js';
export * from './compaction.js';
export { reportingScope, windowOf, defaultAnalyticsSince, type ReportingFilter } from './window.js';
