import { Migration } from '@mikro-orm/migrations';

/**
 * Evidence is sealed at complete (issue 27): the upload's bytes are copied to a key no upload
 * URL can address, and their SHA-256 is kept, so a later PUT to the upload URL changes nothing.
 */
export class Migration20261126010000SealedEvidence extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "uploads" add column "evidence_key" varchar(400) null, add column "sha256" varchar(64) null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "uploads" drop column "evidence_key", drop column "sha256";`);
  }
}
