import { Migration } from '@mikro-orm/migrations';

/**
 * The audit trail of reveals, evidence views and exports (decisions.md, Back office): who, when,
 * which verification, which field names or how many images, never values. Append-only: a
 * trigger refuses every update and delete, whoever asks. And the team's activity rows: who did
 * what to which case through which surface, never applicant details.
 */
export class Migration20261125020000AuditEvents extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "audit_events" ("id" varchar(40) not null primary key, "merchant_id" varchar(40) not null references "merchants" ("id") on update cascade,
        "mode" varchar(10) not null, "member_id" varchar(40) not null, "action" varchar(60) not null, "verification_id" varchar(40) null,
        "field_names" text[] null, "image_count" int null, "row_count" int null, "created_at" timestamptz(3) not null default now());`,
    );
    this.addSql(
      `create index "audit_events_merchant_created_index" on "audit_events" ("merchant_id", "created_at" desc, "id" desc);`,
    );
    this.addSql(
      `create function "audit_events_append_only"() returns trigger language plpgsql as $$ begin raise exception 'audit_events is append-only'; end $$;`,
    );
    this.addSql(
      `create trigger "audit_events_append_only" before update or delete on "audit_events" for each row execute function "audit_events_append_only"();`,
    );
    this.addSql(
      `create table "activity_events" ("id" varchar(40) not null primary key, "merchant_id" varchar(40) not null references "merchants" ("id") on update cascade,
        "mode" varchar(10) not null, "member_id" varchar(40) null, "action" varchar(60) not null, "target_type" varchar(40) not null, "target_id" varchar(64) not null,
        "surface" varchar(10) not null, "created_at" timestamptz(3) not null default now());`,
    );
    this.addSql(
      `create index "activity_events_merchant_created_index" on "activity_events" ("merchant_id", "created_at" desc, "id" desc);`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "activity_events";`);
    this.addSql(`drop table if exists "audit_events";`);
    this.addSql(`drop function if exists "audit_events_append_only"();`);
  }
}
