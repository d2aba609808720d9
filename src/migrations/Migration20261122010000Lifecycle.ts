import { Migration } from '@mikro-orm/migrations';

/** Verification lifecycle: flows, sessions, checks, uploads, applicants, tags, the event outbox, idempotency, usage, reviews. */
export class Migration20261122010000Lifecycle extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "idempotency_keys" ("api_key_id" uuid not null, "key" varchar(255) not null, "request_hash" varchar(64) not null, "status" varchar(20) not null default 'in_flight', "response_status" int null, "response_body" jsonb null, "created_at" timestamptz(3) not null, "expires_at" timestamptz(3) not null, constraint "idempotency_keys_pkey" primary key ("api_key_id", "key"));`,
    );
    this.addSql(`create index "idempotency_keys_expires_at_index" on "idempotency_keys" ("expires_at");`);
    this.addSql(
      `create table "flows" ("id" varchar(40) not null, "merchant_id" varchar(40) not null, "created_at" timestamptz(3) not null, "mode" varchar(10) not null, "updated_at" timestamptz(3) not null, "name" varchar(200) not null, "steps" jsonb not null, "is_default" boolean not null default false, "is_preset" boolean not null default false, "status" varchar(20) not null default 'active', "sensitivity" double precision null, "brand_name" varchar(200) null, "logo_url" varchar(2048) null, "accent_color" varchar(20) null, "support_url" varchar(2048) null, "languages" text[] not null, "default_email_locale" varchar(35) null, "country_policy" jsonb null, "network_policy" jsonb null, "expiry_policy" jsonb null, "policy_tree" jsonb null, "accepted_document_types" text[] not null, "repeat_policy" jsonb null, "version" int not null default 1, "deleted_at" timestamptz(3) null, constraint "flows_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "flows_merchant_id_index" on "flows" ("merchant_id");`);
    this.addSql(
      `create index "flows_merchant_id_mode_created_at_id_index" on "flows" ("merchant_id", "mode", "created_at", "id");`,
    );
    this.addSql(
      `create table "events" ("id" varchar(40) not null, "merchant_id" varchar(40) not null, "created_at" timestamptz(3) not null, "mode" varchar(10) not null, "updated_at" timestamptz(3) not null, "type" varchar(60) not null, "verification_id" varchar(40) null, "api_key_id" uuid null, "payload" jsonb not null, "test" boolean not null default false, "dispatched_at" timestamptz(3) null, constraint "events_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "events_merchant_id_index" on "events" ("merchant_id");`);
    this.addSql(`create index "events_verification_id_index" on "events" ("verification_id");`);
    this.addSql(`create index "events_dispatched_at_created_at_index" on "events" ("dispatched_at", "created_at");`);
    this.addSql(
      `create table "applicants" ("id" varchar(40) not null, "merchant_id" varchar(40) not null, "created_at" timestamptz(3) not null, "mode" varchar(10) not null, "updated_at" timestamptz(3) not null, "has_identity_link" boolean not null default false, "person_fingerprint" varchar(64) null, constraint "applicants_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "applicants_merchant_id_index" on "applicants" ("merchant_id");`);
    this.addSql(`create index "applicants_person_fingerprint_index" on "applicants" ("person_fingerprint");`);
    this.addSql(
      `create table "tags" ("id" varchar(40) not null, "merchant_id" varchar(40) not null, "created_at" timestamptz(3) not null, "mode" varchar(10) not null, "updated_at" timestamptz(3) not null, "name" varchar(100) not null, "slug" varchar(100) not null, "color" varchar(20) not null default 'slate', "description" varchar(500) null, "retired_at" timestamptz(3) null, constraint "tags_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "tags_merchant_id_index" on "tags" ("merchant_id");`);
    this.addSql(
      `create table "applicant_tags" ("applicant_id" varchar(40) not null, "tag_id" varchar(40) not null, "created_at" timestamptz(3) not null, constraint "applicant_tags_pkey" primary key ("applicant_id", "tag_id"));`,
    );
    this.addSql(`create index "applicant_tags_tag_id_index" on "applicant_tags" ("tag_id");`);
    this.addSql(
      `create table "usage_records" ("id" uuid not null, "merchant_id" varchar(40) not null, "created_at" timestamptz(3) not null, "mode" varchar(10) not null, "updated_at" timestamptz(3) not null, "verification_id" varchar(40) not null, "check_type" varchar(30) not null, "billable" boolean not null, constraint "usage_records_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "usage_records_merchant_id_index" on "usage_records" ("merchant_id");`);
    this.addSql(
      `create index "usage_records_merchant_id_mode_created_at_index" on "usage_records" ("merchant_id", "mode", "created_at");`,
    );
    this.addSql(
      `create table "verifications" ("id" varchar(40) not null, "merchant_id" varchar(40) not null, "created_at" timestamptz(3) not null, "mode" varchar(10) not null, "updated_at" timestamptz(3) not null, "status" varchar(20) not null default 'pending', "flow_id" varchar(40) not null, "flow_snapshot" jsonb not null, "verdict" varchar(10) null, "score" double precision null, "reason_codes" text[] not null, "change_reason" varchar(20) null, "decline_type" varchar(10) null, "identity_version" int not null default 0, "identity_edited_at" timestamptz(3) null, "client_token_hash" varchar(64) not null, "locale" varchar(35) not null default 'en', "metadata" jsonb not null, "expires_at" timestamptz(3) not null, "sequence" int not null default 0, "applicant_id" varchar(40) null, "sandbox" jsonb null, "is_preview" boolean not null default false, "api_key_id" uuid null, "identity" text null, "email_fingerprint" varchar(64) null, "reference_fingerprint" varchar(64) null, "document_fingerprint" varchar(64) null, "national_id_fingerprint" varchar(64) null, "decided_at" timestamptz(3) null, "retention_purged_at" timestamptz(3) null, constraint "verifications_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "verifications_merchant_id_index" on "verifications" ("merchant_id");`);
    this.addSql(
      `create index "verifications_merchant_id_mode_national_id_fingerprint_index" on "verifications" ("merchant_id", "mode", "national_id_fingerprint");`,
    );
    this.addSql(
      `create index "verifications_merchant_id_mode_document_fingerprint_index" on "verifications" ("merchant_id", "mode", "document_fingerprint");`,
    );
    this.addSql(
      `create index "verifications_merchant_id_mode_reference_fingerprint_index" on "verifications" ("merchant_id", "mode", "reference_fingerprint");`,
    );
    this.addSql(
      `create index "verifications_merchant_id_mode_email_fingerprint_index" on "verifications" ("merchant_id", "mode", "email_fingerprint");`,
    );
    this.addSql(
      `create index "verifications_merchant_id_mode_status_created_at_index" on "verifications" ("merchant_id", "mode", "status", "created_at");`,
    );
    this.addSql(
      `create index "verifications_merchant_id_mode_created_at_id_index" on "verifications" ("merchant_id", "mode", "created_at", "id");`,
    );
    this.addSql(
      `create table "uploads" ("id" varchar(40) not null, "merchant_id" varchar(40) not null, "created_at" timestamptz(3) not null, "mode" varchar(10) not null, "updated_at" timestamptz(3) not null, "verification_id" varchar(40) not null, "kind" varchar(20) not null, "side" varchar(10) null, "document_type" varchar(40) null, "content_type" varchar(100) not null, "storage_key" varchar(300) not null, "status" varchar(20) not null default 'pending', "size" bigint null, "uploaded_at" timestamptz(3) null, "analysis" jsonb null, constraint "uploads_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "uploads_merchant_id_index" on "uploads" ("merchant_id");`);
    this.addSql(`create index "uploads_verification_id_index" on "uploads" ("verification_id");`);
    this.addSql(
      `create table "manual_reviews" ("id" uuid not null, "merchant_id" varchar(40) not null, "created_at" timestamptz(3) not null, "mode" varchar(10) not null, "updated_at" timestamptz(3) not null, "verification_id" varchar(40) not null, "status" varchar(20) not null default 'queued', "decision" varchar(10) null, "notes" text null, "reviewed_at" timestamptz(3) null, "decided_by" varchar(60) null, constraint "manual_reviews_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "manual_reviews_merchant_id_index" on "manual_reviews" ("merchant_id");`);
    this.addSql(`create index "manual_reviews_verification_id_index" on "manual_reviews" ("verification_id");`);
    this.addSql(
      `create index "manual_reviews_merchant_id_mode_status_created_at_index" on "manual_reviews" ("merchant_id", "mode", "status", "created_at");`,
    );
    this.addSql(
      `create table "checks" ("id" varchar(40) not null, "merchant_id" varchar(40) not null, "created_at" timestamptz(3) not null, "mode" varchar(10) not null, "updated_at" timestamptz(3) not null, "verification_id" varchar(40) not null, "position" int not null, "type" varchar(30) not null, "required" boolean not null, "sensitivity" double precision null, "threshold" double precision null, "config" jsonb not null, "status" varchar(20) not null default 'pending', "verdict" varchar(10) null, "score" double precision null, "provider_tier" varchar(30) not null default 'standard', "reason_codes" text[] not null, constraint "checks_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "checks_merchant_id_index" on "checks" ("merchant_id");`);
    this.addSql(`create index "checks_verification_id_index" on "checks" ("verification_id");`);
    this.addSql(
      `create table "verification_tags" ("verification_id" varchar(40) not null, "tag_id" varchar(40) not null, "created_at" timestamptz(3) not null, constraint "verification_tags_pkey" primary key ("verification_id", "tag_id"));`,
    );
    this.addSql(`create index "verification_tags_tag_id_index" on "verification_tags" ("tag_id");`);
    this.addSql(
      `alter table "flows" add constraint "flows_merchant_id_foreign" foreign key ("merchant_id") references "merchants" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "events" add constraint "events_merchant_id_foreign" foreign key ("merchant_id") references "merchants" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "applicants" add constraint "applicants_merchant_id_foreign" foreign key ("merchant_id") references "merchants" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "tags" add constraint "tags_merchant_id_foreign" foreign key ("merchant_id") references "merchants" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "applicant_tags" add constraint "applicant_tags_applicant_id_foreign" foreign key ("applicant_id") references "applicants" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "applicant_tags" add constraint "applicant_tags_tag_id_foreign" foreign key ("tag_id") references "tags" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "usage_records" add constraint "usage_records_merchant_id_foreign" foreign key ("merchant_id") references "merchants" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "verifications" add constraint "verifications_merchant_id_foreign" foreign key ("merchant_id") references "merchants" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "verifications" add constraint "verifications_flow_id_foreign" foreign key ("flow_id") references "flows" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "verifications" add constraint "verifications_applicant_id_foreign" foreign key ("applicant_id") references "applicants" ("id") on update cascade on delete set null;`,
    );
    this.addSql(
      `alter table "uploads" add constraint "uploads_merchant_id_foreign" foreign key ("merchant_id") references "merchants" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "uploads" add constraint "uploads_verification_id_foreign" foreign key ("verification_id") references "verifications" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "manual_reviews" add constraint "manual_reviews_merchant_id_foreign" foreign key ("merchant_id") references "merchants" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "manual_reviews" add constraint "manual_reviews_verification_id_foreign" foreign key ("verification_id") references "verifications" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "checks" add constraint "checks_merchant_id_foreign" foreign key ("merchant_id") references "merchants" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "checks" add constraint "checks_verification_id_foreign" foreign key ("verification_id") references "verifications" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "verification_tags" add constraint "verification_tags_verification_id_foreign" foreign key ("verification_id") references "verifications" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "verification_tags" add constraint "verification_tags_tag_id_foreign" foreign key ("tag_id") references "tags" ("id") on update cascade;`,
    );
    this.addSql(
      `create unique index "flows_one_default_per_environment" on "flows" ("merchant_id", "mode") where "is_default" and "deleted_at" is null;`,
    );
    this.addSql(
      `create unique index "flows_one_preset_per_environment" on "flows" ("merchant_id", "mode") where "is_preset";`,
    );
    this.addSql(
      `create unique index "tags_live_slug_unique" on "tags" ("merchant_id", "mode", "slug") where "retired_at" is null;`,
    );
    this.addSql(
      `create index "verifications_open_expiry_index" on "verifications" ("expires_at") where "status" in ('pending', 'processing');`,
    );
    this.addSql(`create index "events_undispatched_index" on "events" ("created_at") where "dispatched_at" is null;`);
    this.addSql(
      `create unique index "manual_reviews_one_open_per_verification" on "manual_reviews" ("verification_id") where "status" in ('queued', 'in_review', 'escalated');`,
    );
    this.addSql(
      `create index "verification_tags_verification_id_index" on "verification_tags" ("verification_id", "created_at");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(
      'drop table if exists "verification_tags", "applicant_tags", "checks", "uploads", "manual_reviews", "usage_records", "events", "idempotency_keys", "tags", "verifications", "applicants", "flows" cascade;',
    );
  }
}
