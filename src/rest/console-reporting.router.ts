import Router from '@koa/router';
import { svc } from '../http/auth.js';
import {
  consoleUsage,
  getPerson,
  listPersons,
  reportingAnalytics,
  reportingOverview,
} from '../services/reporting/index.js';
import {
  presentAnalytics,
  presentOverview,
  presentPerson,
  presentPersonDetail,
  presentUsageReport,
} from './console-reporting.presenter.js';
import { analyticsQuery, consoleUsageQuery, listPersonsQuery, overviewQuery } from './console-reporting.schema.js';
import { presentList } from './presenters.js';
import { pageParams, parseInput } from './validate.js';

const dateOf = (value?: string) => (value ? new Date(value) : null);

/** /v1/console/overview, analytics, usage and persons: reporting for team members over the reporting services. */
export function consoleReportingRouter(): Router {
  const router = new Router();
  router.get('/v1/console/overview', async (ctx) => {
    const query = parseInput(overviewQuery, ctx.query);
    ctx.body = presentOverview(await reportingOverview(svc(ctx), { mode: query.mode, since: dateOf(query.since) }));
  });
  router.get('/v1/console/analytics', async (ctx) => {
    const query = parseInput(analyticsQuery, ctx.query);
    ctx.body = presentAnalytics(await reportingAnalytics(svc(ctx), { mode: query.mode, since: dateOf(query.since) }));
  });
  router.get('/v1/console/usage', async (ctx) => {
    const query = parseInput(consoleUsageQuery, ctx.query);
    ctx.body = presentUsageReport(await consoleUsage(svc(ctx), { mode: query.mode, since: dateOf(query.since) }));
  });
  router.get('/v1/console/persons', async (ctx) => {
    const query = parseInput(listPersonsQuery, ctx.query);
    ctx.body = presentList(await listPersons(svc(ctx), { mode: query.mode }, pageParams(query)), presentPerson);
  });
  router.get('/v1/console/persons/:id', async (ctx) => {
    ctx.body = presentPersonDetail(await getPerson(svc(ctx), ctx.params.id));
  });
  return router;
}
