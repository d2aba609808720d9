import { Arg, Authorized, Ctx, ID, Int, Query, Resolver } from 'type-graphql';
import type { VerificationStatus } from '../entities/verification.entity.js';
import { Environment } from '../schema/enums.js';
import {
  DecisionFunnelType,
  PersonConnection,
  PersonType,
  ReasonCodeCountType,
  ReportingAnalyticsType,
  ReportingFilterInput,
  ReportingOverviewType,
  StatusCountsType,
  TimeToDecisionType,
  UsageReportType,
} from '../schema/reporting.types.js';
import {
  consoleUsage,
  getPerson,
  listPersons,
  reasonCodeBreakdown,
  reportingAnalytics,
  reportingFunnel,
  reportingOverview,
  timeToDecision,
  type ReportingFilter,
  type StatusBreakdown,
} from '../services/reporting/index.js';
import { checkedCursor, ID_PATTERNS, type ServiceContext } from '../services/shared/index.js';
import { pageSize } from './api-key.resolver.js';
import { type Source, type Connection, connectionOf } from './source.js';

const filterOf = (input?: ReportingFilterInput | null): ReportingFilter => ({
  mode: input?.environment ?? null,
  since: input?.since ?? null,
  flowId: input?.flowId ?? null,
  tagId: input?.tagId ?? null,
});

const counts = (by: Partial<Record<VerificationStatus, number>>): StatusCountsType => ({
  pending: by.pending ?? 0,
  processing: by.processing ?? 0,
  approved: by.approved ?? 0,
  rejected: by.rejected ?? 0,
  manualReview: by.manual_review ?? 0,
  expired: by.expired ?? 0,
});

const breakdown = <B extends StatusBreakdown>(b: B) => ({ ...b, byStatus: counts(b.byStatus) });

/** Reporting for analysts: the numbers of the /v1/console reporting routes, plus filters and what an analyst asks next. */
@Resolver()
export class ReportingResolver {
  @Authorized()
  @Query(() => ReportingOverviewType, {
    description: 'Status breakdown and the count awaiting a reviewer (GET /v1/console/overview).',
  })
  async reportingOverview(
    @Ctx() ctx: ServiceContext,
    @Arg('filter', () => ReportingFilterInput, { nullable: true }) filter?: ReportingFilterInput,
  ): Promise<Source<ReportingOverviewType>> {
    const overview = await reportingOverview(ctx, filterOf(filter));
    return { ...breakdown(overview), environments: overview.modes as Environment[], since: overview.since };
  }

  @Authorized()
  @Query(() => ReportingAnalyticsType, {
    description: 'The overview bucketed by UTC day (GET /v1/console/analytics); since defaults to 30 days ago.',
  })
  async reportingAnalytics(
    @Ctx() ctx: ServiceContext,
    @Arg('filter', () => ReportingFilterInput, { nullable: true }) filter?: ReportingFilterInput,
  ): Promise<Source<ReportingAnalyticsType>> {
    const analytics = await reportingAnalytics(ctx, filterOf(filter));
    return {
      ...breakdown(analytics),
      environments: analytics.modes as Environment[],
      since: analytics.since,
      days: analytics.days.map(breakdown),
    };
  }

  @Authorized()
  @Query(() => [ReasonCodeCountType], {
    description: 'Verifications per reason code (one with two codes counts under each), most frequent first.',
  })
  async reasonCodeBreakdown(
    @Ctx() ctx: ServiceContext,
    @Arg('filter', () => ReportingFilterInput, { nullable: true }) filter?: ReportingFilterInput,
  ): Promise<Source<ReasonCodeCountType>[]> {
    return (await reasonCodeBreakdown(ctx, filterOf(filter))).map((r) => ({
      reasonCode: r.reasonCode,
      count: r.count,
      byStatus: counts(r.byStatus),
    }));
  }

  @Authorized()
  @Query(() => TimeToDecisionType, {
    description: 'Creation to final decision, p50 and p90, engine and reviewer separately.',
  })
  async timeToDecision(
    @Ctx() ctx: ServiceContext,
    @Arg('filter', () => ReportingFilterInput, { nullable: true }) filter?: ReportingFilterInput,
  ): Promise<Source<TimeToDecisionType>> {
    return timeToDecision(ctx, filterOf(filter));
  }

  @Authorized()
  @Query(() => DecisionFunnelType, { description: 'created -> submitted -> decided.' })
  async decisionFunnel(
    @Ctx() ctx: ServiceContext,
    @Arg('filter', () => ReportingFilterInput, { nullable: true }) filter?: ReportingFilterInput,
  ): Promise<Source<DecisionFunnelType>> {
    return reportingFunnel(ctx, filterOf(filter));
  }

  @Authorized()
  @Query(() => UsageReportType, { description: 'Metering per check type and per environment (GET /v1/console/usage).' })
  async usageReport(
    @Ctx() ctx: ServiceContext,
    @Arg('environment', () => Environment, { nullable: true }) environment?: Environment,
    @Arg('since', () => Date, { nullable: true }) since?: Date,
  ): Promise<Source<UsageReportType>> {
    const report = await consoleUsage(ctx, { mode: environment ?? null, since: since ?? null });
    return report;
  }

  @Authorized('persons.read')
  @Query(() => PersonConnection, {
    description: 'Persons of the seat\u2019s environments, newest first; no identity (persons.read).',
  })
  async persons(
    @Ctx() ctx: ServiceContext,
    @Arg('environment', () => Environment, { nullable: true }) environment?: Environment,
    @Arg('first', () => Int, { nullable: true }) first?: number,
    @Arg('after', () => String, { nullable: true }) after?: string,
  ): Promise<Connection<Source<PersonType>>> {
    const page = await listPersons(
      ctx,
      { mode: environment ?? null },
      { limit: pageSize(first), startingAfter: checkedCursor(after, ID_PATTERNS.applicant) },
    );
    return connectionOf(page);
  }

  @Authorized('persons.read')
  @Query(() => PersonType, {
    description: 'A person and its latest 100 attempts, newest first; no identity (persons.read).',
  })
  async person(@Ctx() ctx: ServiceContext, @Arg('id', () => ID) id: string): Promise<Source<PersonType>> {
    return await getPerson(ctx, id);
  }
}
