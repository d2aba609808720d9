import type { Runtime } from '../runtime.js';
import { RESUME_ENDPOINT_JOB, resumeEndpoint } from '../services/webhooks/index.js';
import type { JobDefinition } from './job.js';

export interface ResumeEndpointData {
  endpointId: string;
}

/**
 * The end of a paused endpoint's pause: one probe delivery decides whether its waiting
 * deliveries go out again or it stays paused (longer). One job per pause, not one per delivery.
 */
export const resumeWebhookEndpointJob: JobDefinition<ResumeEndpointData> = {
  name: RESUME_ENDPOINT_JOB,
  concurrency: 2,
  priority: 'low',
  handler: async (runtime: Runtime, data) => {
    await resumeEndpoint(runtime, data.endpointId);
  },
};
