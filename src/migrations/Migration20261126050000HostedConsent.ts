import { Migration } from '@mikro-orm/migrations';

/**
 * The hosted page's consent and return (issue 30): a verification records the applicant's
 * consent (`consent` {version, language, given_at}) or when they declined it, and the
 * `return_url` the key set at create; a flow's branding gains `privacy_url`.
 */
export class Migration20261126050000HostedConsent extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "verifications" add column "consent" jsonb null, add column "consent_declined_at" timestamptz(3) null, add column "return_url" varchar(2048) null;`,
    );
    this.addSql(`alter table "flows" add column "privacy_url" varchar(2048) null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "flows" drop column if exists "privacy_url";`);
    this.addSql(
      `alter table "verifications" drop column if exists "consent", drop column if exists "consent_declined_at", drop column if exists "return_url";`,
    );
  }
}
