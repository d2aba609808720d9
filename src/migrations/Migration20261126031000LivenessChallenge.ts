import { Migration } from '@mikro-orm/migrations';

/**
 * Active liveness (issue 28): a selfie upload the hosted page asks for during a liveness
 * challenge is bound to that challenge and step by the server, so frames captured for another
 * challenge (or none) cannot be passed off as this one's.
 */
export class Migration20261126031000LivenessChallenge extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "uploads" add column "challenge_id" varchar(40) null, add column "challenge_step" int null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "uploads" drop column if exists "challenge_id", drop column if exists "challenge_step";`);
  }
}
