import { Migration } from '@mikro-orm/migrations';

/**
 * The request log takes a row per key call, so every index and constraint on it is paid on
 * the request path's database: the merchant foreign key (a lookup and a key-share lock per
 * row) goes, the account is checked where the row is made (the authenticated key), and the
 * 30-day purge's btree on created_at becomes a BRIN index (rows arrive in time order; a BRIN
 * index costs almost nothing to maintain and still finds the oldest pages).
 */
export class Migration20261125121000RequestLogsLean extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "request_logs" drop constraint if exists "request_logs_merchant_id_fkey";`);
    this.addSql(`drop index if exists "request_logs_created_index";`);
    this.addSql(`create index "request_logs_created_brin" on "request_logs" using brin ("created_at");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "request_logs_created_brin";`);
    this.addSql(`create index "request_logs_created_index" on "request_logs" ("created_at");`);
    this.addSql(
      `alter table "request_logs" add constraint "request_logs_merchant_id_fkey" foreign key ("merchant_id") references "merchants" ("id") on update cascade;`,
    );
  }
}
