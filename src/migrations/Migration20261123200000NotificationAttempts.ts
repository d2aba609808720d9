import { Migration } from '@mikro-orm/migrations';

/**
 * Outcome emails go through a real mail server when SMTP_URL is set, and a server can refuse
 * or be down: a row is now marked sent only after the server accepted it, counts its
 * attempts, keeps the last error, and ends `failed` after the last retry.
 */
export class Migration20261123200000NotificationAttempts extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "applicant_notifications" add column "attempts" int not null default 0, add column "last_error" varchar(300) null, add column "failed_at" timestamptz(3) null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(
      `alter table "applicant_notifications" drop column "attempts", drop column "last_error", drop column "failed_at";`,
    );
  }
}
