import { text } from 'node:stream/consumers';
import { Arg, Authorized, Ctx, Mutation, Resolver } from 'type-graphql';
import { Environment } from '../schema/enums.js';
import { CsvExportType } from '../schema/logs.types.js';
import { exportUsage, exportVerifications, type CsvExport } from '../services/logs/index.js';
import type { ServiceContext } from '../services/shared/index.js';
import { type Source } from './source.js';

/**
 * The console's CSV exports for GraphQL clients, through the same services (same cap,
 * same CSV writer, same audit rows). GraphQL has no streamed answer, so the CSV arrives
 * whole as a string; at 5,000 rows that is a few hundred kilobytes.
 */
async function collected(csv: CsvExport): Promise<Source<CsvExportType>> {
  return { filename: csv.filename, rows: csv.rows, truncated: csv.truncated, csv: await text(csv.stream) };
}

@Resolver()
export class ExportsResolver {
  /** The service also checks verifications.reveal, which the spec ties to verifications.export. */
  @Authorized('verifications.export')
  @Mutation(() => CsvExportType, {
    description:
      'Verifications as CSV, newest first, at most 5,000 rows (verifications.export; audited, as a different event with identity).',
  })
  async exportVerifications(
    @Ctx() ctx: ServiceContext,
    @Arg('since', () => Date, { nullable: true }) since?: Date,
    @Arg('includeIdentity', () => Boolean, { nullable: true }) includeIdentity?: boolean,
    @Arg('environment', () => Environment, { nullable: true }) environment?: Environment,
  ): Promise<Source<CsvExportType>> {
    return collected(
      await exportVerifications(ctx, {
        since: since ?? undefined,
        includeIdentity: includeIdentity ?? false,
        mode: environment ?? undefined,
      }),
    );
  }

  @Authorized('usage.export')
  @Mutation(() => CsvExportType, {
    description: 'Metered check runs per UTC day, environment and check type as CSV (usage.export; audited).',
  })
  async exportUsage(
    @Ctx() ctx: ServiceContext,
    @Arg('since', () => Date, { nullable: true }) since?: Date,
    @Arg('environment', () => Environment, { nullable: true }) environment?: Environment,
  ): Promise<Source<CsvExportType>> {
    return collected(await exportUsage(ctx, { since: since ?? undefined, mode: environment ?? undefined }));
  }
}
