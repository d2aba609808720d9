import { Migration } from '@mikro-orm/migrations';

/** Repeat-verification control: account settings, reverification grants, document expiry, review escalation. */
export class Migration20261122020000RepeatControl extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "account_settings" ("merchant_id" varchar(40) not null primary key references "merchants" ("id") on update cascade, "repeat_verification" jsonb not null, "reverification_period_days" int null, "retention_days" int not null default 1095, "review_policy" jsonb not null, "version" int not null default 1, "updated_at" timestamptz(3) not null);`,
    );
    this.addSql(
      `create table "reverification_grants" ("id" varchar(40) not null primary key, "merchant_id" varchar(40) not null references "merchants" ("id") on update cascade, "created_at" timestamptz(3) not null, "mode" varchar(10) not null, "updated_at" timestamptz(3) not null, "verification_id" varchar(40) not null references "verifications" ("id") on update cascade, "reason" varchar(30) not null, "note" varchar(1000) null, "expires_at" timestamptz(3) not null, "spent_at" timestamptz(3) null, "spent_by_verification_id" varchar(40) null, "revoked_at" timestamptz(3) null);`,
    );
    this.addSql(
      `create index "reverification_grants_verification_id_index" on "reverification_grants" ("verification_id");`,
    );
    this.addSql(
      `create unique index "reverification_grants_one_open" on "reverification_grants" ("verification_id") where "spent_at" is null and "revoked_at" is null;`,
    );
    this.addSql(`alter table "verifications" add column "document_expires_on" date null;`);
    this.addSql(`alter table "manual_reviews" add column "escalated_at" timestamptz(3) null;`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists "reverification_grants", "account_settings" cascade;');
    this.addSql('alter table "verifications" drop column if exists "document_expires_on";');
    this.addSql('alter table "manual_reviews" drop column if exists "escalated_at";');
  }
}
