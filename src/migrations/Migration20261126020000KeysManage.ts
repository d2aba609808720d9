import { Migration } from '@mikro-orm/migrations';

/**
 * Keys managed from a seat (issue 27): the member permission `keys.manage`, granted to the
 * owners that exist (members holding every other member permission, as `bootstrap` makes
 * them), and a `detail` on activity rows so a key's row names the key (its name and
 * `key_prefix`, never the secret).
 */
export class Migration20261126020000KeysManage extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "activity_events" add column if not exists "detail" jsonb null;`);
    this.addSql(`update "members" set "permissions" = array_append("permissions", 'keys.manage')
      where not ('keys.manage' = any("permissions"))
        and "permissions" @> array['verifications.reveal', 'persons.read', 'logs.read', 'verifications.export', 'usage.export', 'reviews.assign', 'reviews.resolve_escalation', 'settings.manage']::text[];`);
  }

  override async down(): Promise<void> {
    this.addSql(`update "members" set "permissions" = array_remove("permissions", 'keys.manage');`);
    this.addSql(`alter table "activity_events" drop column if exists "detail";`);
  }
}
