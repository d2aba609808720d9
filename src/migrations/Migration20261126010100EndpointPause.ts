import { Migration } from '@mikro-orm/migrations';

/**
 * A webhook endpoint that keeps failing is paused (issue 27): failed attempts in a row and the
 * end of the pause. The partial index serves the per-endpoint count of attempts in flight.
 */
export class Migration20261126010100EndpointPause extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "webhook_endpoints" add column "consecutive_failures" int not null default 0, add column "paused_until" timestamptz(3) null;`,
    );
    this.addSql(
      `create index "webhook_deliveries_leased_endpoint_index" on "webhook_deliveries" ("endpoint_id") where "lease_until" is not null;`,
    );
    this.addSql(
      `create index "webhook_deliveries_pending_endpoint_index" on "webhook_deliveries" ("endpoint_id", "next_attempt_at") where "status" = 'pending';`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "webhook_deliveries_pending_endpoint_index";`);
    this.addSql(`drop index if exists "webhook_deliveries_leased_endpoint_index";`);
    this.addSql(`alter table "webhook_endpoints" drop column "consecutive_failures", drop column "paused_until";`);
  }
}
