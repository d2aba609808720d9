import { Migration } from '@mikro-orm/migrations';

/**
 * A member's email is unique within its account, no longer across the platform (issue 27):
 * inviting an address that is a member of another account answers like any new invite instead
 * of 409 MEMBER_EXISTS, which told the inviter the address worked elsewhere. The person then
 * holds one seat per account, each with its own password, and signs in to one account at a
 * time (sign-in finds the seat whose password matches; docs/security-api.md).
 */
export class Migration20261126021000MemberEmailPerAccount extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "members" drop constraint if exists "members_email_unique";`);
    this.addSql(
      `alter table "members" add constraint "members_merchant_email_unique" unique ("merchant_id", "email");`,
    );
    this.addSql(`create index if not exists "members_email_index" on "members" ("email");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "members_email_index";`);
    this.addSql(`alter table "members" drop constraint if exists "members_merchant_email_unique";`);
    this.addSql(`alter table "members" add constraint "members_email_unique" unique ("email");`);
  }
}
