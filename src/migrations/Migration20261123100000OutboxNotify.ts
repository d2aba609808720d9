import { Migration } from '@mikro-orm/migrations';

/**
 * Committed outbox events notify the dispatcher (channel `events_outbox`, see OutboxSignal)
 * instead of it polling the table. A statement-level trigger: one pg_notify per inserting
 * statement, and PostgreSQL folds a transaction's identical notifications into one, delivered
 * only at commit.
 */
export class Migration20261123100000OutboxNotify extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create function "events_outbox_notify"() returns trigger language plpgsql as $$ begin perform pg_notify('events_outbox', ''); return null; end $$;`,
    );
    this.addSql(
      `create trigger "events_outbox_notify" after insert on "events" for each statement execute function "events_outbox_notify"();`,
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop trigger if exists "events_outbox_notify" on "events";');
    this.addSql('drop function if exists "events_outbox_notify"();');
  }
}
