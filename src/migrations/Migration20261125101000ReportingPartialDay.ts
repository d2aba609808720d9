import { Migration } from '@mikro-orm/migrations';

/**
 * A reporting question with a mid-day `since` reads the part of its first day from the rows
 * (the rollup holds whole UTC days). At volume that is thousands of rows scattered over the
 * heap; this index carries every column the rollup keys need, so the read is an index-only
 * scan of one account's slice of one day instead of a random heap fetch per row.
 * `if not exists`: a large database can build them beforehand with `create index concurrently`.
 */
export class Migration20261125101000ReportingPartialDay extends Migration {
  override async up(): Promise<void> {
    this
      .addSql(`create index if not exists "verifications_reporting_day_index" on "verifications" ("merchant_id", "mode", "created_at")
      include ("id", "flow_id", "status", "change_reason", "submitted_at", "decided_at", "reason_codes");`);
    // A tag filter joins the day's rows with the tag's rows: read those from the index alone too.
    this.addSql(
      `create index if not exists "verification_tags_tag_verification_index" on "verification_tags" ("tag_id", "verification_id");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "verification_tags_tag_verification_index";`);
    this.addSql(`drop index if exists "verifications_reporting_day_index";`);
  }
}
