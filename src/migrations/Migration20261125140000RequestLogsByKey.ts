import { Migration } from '@mikro-orm/migrations';

/**
 * The request log's writes, cheaper again (issue 17: a key call may cost at most 10%).
 *
 * - No primary key: a btree on `id` was a third of what PostgreSQL spent per row, and nothing
 *   reads a row by its id. A cursor no longer looks its row up: the id starts with the row's
 *   time (`rlg_` + its millisecond in base 36, 9 characters, + 15 random characters), so
 *   `starting_after` is the position (`created_at`, `id`) itself.
 * - One btree instead of two: (`api_key_id`, `created_at` desc, `id` desc) serves the key filter
 *   directly and the account's whole log as a merge of its keys' newest rows (an account has a
 *   handful of keys, each an index range). The key id is a uuid (16 bytes, not 36 characters).
 * - `request_log_id(created_at, suffix)`: the same id built in SQL (this migration's rewrite of
 *   earlier ids, the bench's seed, tests).
 */
export class Migration20261125140000RequestLogsByKey extends Migration {
  override async up(): Promise<void> {
    this
      .addSql(`create or replace function request_log_id(at timestamptz, suffix text) returns text language sql immutable parallel safe as $$
      select 'rlg_' || string_agg(substr('0123456789abcdefghijklmnopqrstuvwxyz', (floor(floor(extract(epoch from at) * 1000) / (36::numeric ^ p)) % 36)::int + 1, 1), '' order by p desc) || suffix
        from generate_series(0, 8) p
    $$;`);
    this.addSql(`alter table "request_logs" drop constraint if exists "request_logs_pkey";`);
    this.addSql(`drop index if exists "request_logs_merchant_created_index";`);
    this.addSql(`drop index if exists "request_logs_merchant_key_created_index";`);
    this.addSql(`alter table "request_logs" alter column "api_key_id" type uuid using "api_key_id"::uuid;`);
    // Earlier ids took their time when their batch was written, not when the call was made.
    this.addSql(`update "request_logs" set "id" = request_log_id("created_at", substr(md5("id"), 1, 15));`);
    this.addSql(
      `create index "request_logs_key_created_index" on "request_logs" ("api_key_id", "created_at" desc, "id" desc);`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "request_logs_key_created_index";`);
    this.addSql(`alter table "request_logs" alter column "api_key_id" type varchar(40) using "api_key_id"::text;`);
    this.addSql(
      `create index "request_logs_merchant_key_created_index" on "request_logs" ("merchant_id", "api_key_id", "created_at" desc, "id" desc);`,
    );
    this.addSql(
      `create index "request_logs_merchant_created_index" on "request_logs" ("merchant_id", "created_at" desc, "id" desc);`,
    );
    this.addSql(`alter table "request_logs" add constraint "request_logs_pkey" primary key ("id");`);
    this.addSql(`drop function if exists request_log_id(timestamptz, text);`);
  }
}
