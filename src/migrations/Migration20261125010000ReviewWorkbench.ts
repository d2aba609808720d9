import { Migration } from '@mikro-orm/migrations';

/**
 * The reviewer's workbench: a claim (holder and lease end) on a case, its assignee and
 * escalation, and presence markers (advisory, several members at once) that lapse by
 * themselves at `expires_at`.
 */
export class Migration20261125010000ReviewWorkbench extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "manual_reviews" add column "claimed_by" varchar(40) null, add column "claim_expires_at" timestamptz(3) null,
        add column "assigned_to" varchar(40) null, add column "escalation" jsonb null;`,
    );
    this.addSql(
      `create table "review_presence" ("review_id" uuid not null references "manual_reviews" ("id") on delete cascade, "member_id" varchar(40) not null,
        "merchant_id" varchar(40) not null, "mode" varchar(10) not null, "since" timestamptz(3) not null, "expires_at" timestamptz(3) not null,
        constraint "review_presence_pkey" primary key ("review_id", "member_id"));`,
    );
    this.addSql(
      `create index "manual_reviews_claimed_by_index" on "manual_reviews" ("merchant_id", "claimed_by") where "claimed_by" is not null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "review_presence";`);
    this.addSql(
      `alter table "manual_reviews" drop column "claimed_by", drop column "claim_expires_at", drop column "assigned_to", drop column "escalation";`,
    );
  }
}
