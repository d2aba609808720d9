import { Migration } from '@mikro-orm/migrations';

/** Webhook endpoints and their deliveries (one row per event and endpoint, with its attempt log). */
export class Migration20261122030000Webhooks extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "webhook_endpoints" ("id" varchar(40) not null primary key, "merchant_id" varchar(40) not null references "merchants" ("id") on update cascade, "created_at" timestamptz(3) not null, "mode" varchar(10) not null, "updated_at" timestamptz(3) not null, "url" varchar(2048) not null, "events" text[] not null, "api_key_ids" text[] not null, "description" varchar(500) null, "status" varchar(20) not null default 'active', "secret_ciphertext" text not null, "failing_since" timestamptz(3) null, "disabled_reason" varchar(40) null, "deleted_at" timestamptz(3) null);`,
    );
    this.addSql(`create index "webhook_endpoints_merchant_id_index" on "webhook_endpoints" ("merchant_id");`);
    this.addSql(
      `create index "webhook_endpoints_merchant_id_mode_created_at_id_index" on "webhook_endpoints" ("merchant_id", "mode", "created_at", "id");`,
    );
    // Fan-out reads the live endpoints of one account and environment.
    this.addSql(
      `create index "webhook_endpoints_fanout_index" on "webhook_endpoints" ("merchant_id", "mode") where "status" = 'active' and "deleted_at" is null;`,
    );
    this.addSql(
      `create table "webhook_deliveries" ("id" varchar(40) not null primary key, "merchant_id" varchar(40) not null references "merchants" ("id") on update cascade, "created_at" timestamptz(3) not null, "mode" varchar(10) not null, "updated_at" timestamptz(3) not null, "endpoint_id" varchar(40) not null references "webhook_endpoints" ("id") on update cascade, "event_id" varchar(40) not null, "event_type" varchar(60) not null, "test" boolean not null default false, "body" text not null, "status" varchar(20) not null default 'pending', "attempt_count" int not null default 0, "deferred_seconds" int not null default 0, "next_attempt_at" timestamptz(3) not null, "lease_until" timestamptz(3) null, "claim_token" varchar(40) null, "attempts" jsonb not null default '[]', "delivered_at" timestamptz(3) null, "last_error" varchar(300) null);`,
    );
    this.addSql(`create index "webhook_deliveries_merchant_id_index" on "webhook_deliveries" ("merchant_id");`);
    this.addSql(
      `create index "webhook_deliveries_endpoint_id_created_at_id_index" on "webhook_deliveries" ("endpoint_id", "created_at", "id");`,
    );
    // One delivery per (event, endpoint): a re-run of fan-out cannot duplicate.
    this.addSql(
      `create unique index "webhook_deliveries_event_endpoint_unique" on "webhook_deliveries" ("event_id", "endpoint_id");`,
    );
    // The recovery sweep looks only at pending rows.
    this.addSql(
      `create index "webhook_deliveries_pending_index" on "webhook_deliveries" ("next_attempt_at") where "status" = 'pending';`,
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists "webhook_deliveries", "webhook_endpoints" cascade;');
  }
}
