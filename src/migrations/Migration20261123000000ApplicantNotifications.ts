import { Migration } from '@mikro-orm/migrations';

/**
 * The applicant outcome-email outbox: one row per reviewer decision that tells the applicant
 * their outcome. A row waits `OUTCOME_EMAIL_DELAY_SECONDS` before it is sent, so a decision
 * reversed in that window (a reopen) drops it unsent.
 */
export class Migration20261123000000ApplicantNotifications extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "applicant_notifications" ("id" varchar(40) not null primary key, "merchant_id" varchar(40) not null references "merchants" ("id") on update cascade, "created_at" timestamptz(3) not null, "mode" varchar(10) not null, "updated_at" timestamptz(3) not null, "verification_id" varchar(40) not null references "verifications" ("id") on update cascade on delete cascade, "kind" varchar(20) not null, "decision" varchar(10) not null, "status" varchar(20) not null default 'pending', "send_after" timestamptz(3) not null, "sent_at" timestamptz(3) null, "dropped_at" timestamptz(3) null);`,
    );
    this.addSql(
      `create index "applicant_notifications_verification_index" on "applicant_notifications" ("verification_id");`,
    );
    // The sender reads only what is due.
    this.addSql(
      `create index "applicant_notifications_due_index" on "applicant_notifications" ("send_after") where "status" = 'pending';`,
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists "applicant_notifications" cascade;');
  }
}
