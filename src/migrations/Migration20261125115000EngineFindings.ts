import { Migration } from '@mikro-orm/migrations';

/**
 * What the checks engine found (AML hits, fraud-network signals) on each check, and the fraud
 * networks: `fraud_signals` holds what each live verification presented (a document's keyed
 * fingerprint, or a face embedding) with a keyed fingerprint of who presented it; it is
 * compared across accounts, so it holds no plaintext and is never read by a tenant's query.
 * `fraud_networks` is one account's own view of a network (its own id per account, so two
 * accounts cannot correlate their ids), which its events name.
 */
export class Migration20261125115000EngineFindings extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "checks" add column "findings" jsonb not null default '[]';`);
    this.addSql(
      `create table "fraud_signals" ("id" varchar(40) not null primary key, "merchant_id" varchar(40) not null references "merchants" ("id") on update cascade,
        "mode" varchar(10) not null, "verification_id" varchar(40) not null, "kind" varchar(20) not null, "key_fingerprint" varchar(64) null,
        "holder_fingerprint" varchar(64) null, "national_id_fingerprint" varchar(64) null, "embedding" real[] null,
        "created_at" timestamptz(3) not null default now(), constraint "fraud_signals_verification_kind_unique" unique ("verification_id", "kind"));`,
    );
    this.addSql(`create index "fraud_signals_key_index" on "fraud_signals" ("mode", "kind", "key_fingerprint");`);
    this.addSql(
      `create table "fraud_networks" ("id" varchar(40) not null primary key, "merchant_id" varchar(40) not null references "merchants" ("id") on update cascade,
        "mode" varchar(10) not null, "kind" varchar(20) not null, "network_key" varchar(64) not null, "verification_count" int not null default 0,
        "cross_account" boolean not null default false, "created_at" timestamptz(3) not null default now(), "updated_at" timestamptz(3) not null default now(),
        constraint "fraud_networks_merchant_key_unique" unique ("merchant_id", "mode", "kind", "network_key"));`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "fraud_networks";`);
    this.addSql(`drop table if exists "fraud_signals";`);
    this.addSql(`alter table "checks" drop column if exists "findings";`);
  }
}
