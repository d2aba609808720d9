import { Migration } from '@mikro-orm/migrations';

/**
 * Back office, team side (decisions.md): identity versions kept by team edits (each encrypted,
 * with the fingerprints of that version; version 1 is what was read), a reviewer's optional
 * message for the applicant's outcome email (encrypted), and deactivated members.
 */
export class Migration20261125030000ConsoleTeam extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "identity_versions" ("id" varchar(40) not null primary key, "merchant_id" varchar(40) not null references "merchants" ("id") on update cascade,
        "mode" varchar(10) not null, "verification_id" varchar(40) not null references "verifications" ("id") on update cascade on delete cascade,
        "version" int not null, "identity" text null, "email_fingerprint" varchar(64) null, "reference_fingerprint" varchar(64) null,
        "document_fingerprint" varchar(64) null, "national_id_fingerprint" varchar(64) null, "edited_by" varchar(40) null,
        "created_at" timestamptz(3) not null default now(), constraint "identity_versions_verification_version_unique" unique ("verification_id", "version"));`,
    );
    // Repeat control matches the fingerprints a team edit added (person-matches.ts).
    for (const kind of ['email', 'reference', 'document', 'national_id']) {
      this.addSql(
        `create index "identity_versions_${kind}_index" on "identity_versions" ("merchant_id", "mode", "${kind}_fingerprint") where "${kind}_fingerprint" is not null;`,
      );
    }
    this.addSql(`alter table "applicant_notifications" add column "message" text null;`);
    this.addSql(`alter table "members" add column "deactivated_at" timestamptz(3) null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "members" drop column if exists "deactivated_at";`);
    this.addSql(`alter table "applicant_notifications" drop column if exists "message";`);
    this.addSql(`drop table if exists "identity_versions";`);
  }
}
