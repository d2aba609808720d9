import { Migration } from '@mikro-orm/migrations';

/**
 * A webhook endpoint whose url, secret, status or deletion changes notifies channel
 * `webhook_endpoints_changed` with its id (delivered at commit). The dispatching process's
 * sender then hands back the first attempts it still holds for that endpoint, so they are sent
 * by delivery jobs that read the endpoint afresh instead of with the url and secret read at
 * fan-out. Outcome bookkeeping (failing_since and the like) does not notify.
 */
export class Migration20261123210000EndpointNotify extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create function "webhook_endpoints_notify"() returns trigger language plpgsql as $$ begin perform pg_notify('webhook_endpoints_changed', new.id); return null; end $$;`,
    );
    this.addSql(
      `create trigger "webhook_endpoints_notify" after update on "webhook_endpoints" for each row
       when (old.url is distinct from new.url or old.secret_ciphertext is distinct from new.secret_ciphertext
             or old.status is distinct from new.status or old.deleted_at is distinct from new.deleted_at)
       execute function "webhook_endpoints_notify"();`,
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop trigger if exists "webhook_endpoints_notify" on "webhook_endpoints";');
    this.addSql('drop function if exists "webhook_endpoints_notify"();');
  }
}
