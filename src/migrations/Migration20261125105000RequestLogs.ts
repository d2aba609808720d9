import { Migration } from '@mikro-orm/migrations';

/**
 * The request log (decisions.md, Back office): one row per API call made by an account's keys,
 * the client address stored already truncated (/24, /48), kept 30 days. And the index the
 * console's delivery log pages by (account, environment, newest first).
 */
export class Migration20261125105000RequestLogs extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "request_logs" ("id" varchar(40) not null primary key, "merchant_id" varchar(40) not null references "merchants" ("id") on update cascade,
        "mode" varchar(10) not null, "api_key_id" varchar(40) not null, "key_name" varchar(200) not null, "method" varchar(10) not null,
        "route" varchar(2048) not null, "status" smallint not null, "duration_ms" real not null, "request_id" varchar(200) not null,
        "ip" varchar(64) null, "created_at" timestamptz(3) not null);`,
    );
    this.addSql(
      `create index "request_logs_merchant_created_index" on "request_logs" ("merchant_id", "created_at" desc, "id" desc);`,
    );
    this.addSql(
      `create index "request_logs_merchant_key_created_index" on "request_logs" ("merchant_id", "api_key_id", "created_at" desc, "id" desc);`,
    );
    // The 30-day purge walks the oldest rows of every account.
    this.addSql(`create index "request_logs_created_index" on "request_logs" ("created_at");`);
    this.addSql(
      `create index "webhook_deliveries_merchant_mode_created_index" on "webhook_deliveries" ("merchant_id", "mode", "created_at" desc, "id" desc);`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "webhook_deliveries_merchant_mode_created_index";`);
    this.addSql(`drop table if exists "request_logs";`);
  }
}
