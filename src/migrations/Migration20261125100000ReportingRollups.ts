import { Migration } from '@mikro-orm/migrations';

/**
 * Reporting at volume (issue 17): exact rollups of verifications and usage records kept by
 * database triggers, so every path that writes a verification (the ORM, the create's raw SQL,
 * jobs, seeds) keeps them right in its own transaction.
 *
 * Writers never update a shared counter row (that would serialise every create of an
 * account on one row lock): triggers append signed deltas, and a job folds them into the
 * rollup in one statement. Readers sum rollup and pending deltas in one snapshot, so an
 * answer is exact whether or not the fold has run.
 *
 * A verification contributes one key per (tag or none) x (reason code or none) with its
 * UTC creation day, flow, status, who settled it and whether it was submitted, plus, once
 * approved or rejected, one time-to-decision key per (tag or none) on a 5% log scale.
 */
export class Migration20261125100000ReportingRollups extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "verifications" add column "submitted_at" timestamptz(3) null;`);
    this.addSql(`update "verifications" v set "submitted_at" = coalesce(
        (select min(e."created_at") from "events" e where e."verification_id" = v."id" and e."type" = 'verification.awaiting_service'),
        case when v."status" in ('processing', 'approved', 'rejected', 'manual_review') then v."created_at" end);`);
    this.addSql(`create function "verifications_mark_submitted"() returns trigger language plpgsql as $$
      begin
        -- pending -> processing is the submission (decisions.md); an expired pending session never was.
        if new."submitted_at" is null and new."status" not in ('pending', 'expired') then new."submitted_at" := coalesce(new."updated_at", now()); end if;
        return new;
      end $$;`);
    this.addSql(
      `create trigger "verifications_mark_submitted" before insert or update of "status" on "verifications" for each row execute function "verifications_mark_submitted"();`,
    );

    const dims = `"day" date not null, "flow_id" varchar(40) not null, "tag_id" varchar(40) not null default '', "reason_code" text not null default '',
      "status" varchar(20) not null, "change_reason" varchar(20) not null default '', "submitted" boolean not null, "latency_bucket" int not null default -1`;
    this
      .addSql(`create table "reporting_rollup" ("merchant_id" varchar(40) not null, "mode" varchar(10) not null, ${dims}, "n" bigint not null,
      constraint "reporting_rollup_pkey" primary key ("merchant_id", "mode", "tag_id", "reason_code", "latency_bucket", "day", "flow_id", "status", "change_reason", "submitted"));`);
    this.addSql(
      `create table "reporting_deltas" ("id" bigserial primary key, "merchant_id" varchar(40) not null, "mode" varchar(10) not null, ${dims}, "n" int not null);`,
    );
    this.addSql(`create index "reporting_deltas_tenant_index" on "reporting_deltas" ("merchant_id", "mode");`);

    this
      .addSql(`create function "reporting_latency_bucket"(ms double precision) returns int language sql immutable as $$
      select floor(ln(greatest(ms, 1)) / ln(1.05))::int $$;`);
    this
      .addSql(`create function "reporting_keys"(p_created timestamptz, p_flow text, p_status text, p_change text, p_reasons text[], p_submitted boolean, p_decided timestamptz, p_tags text[])
      returns table ("day" date, "flow_id" text, "tag_id" text, "reason_code" text, "status" text, "change_reason" text, "submitted" boolean, "latency_bucket" int)
      language sql stable as $$
        select (p_created at time zone 'UTC')::date, p_flow, t.tag, r.reason, p_status, coalesce(p_change, ''), p_submitted, -1
          from unnest(array[''] || coalesce(p_tags, '{}')) t(tag)
         cross join unnest(array[''] || array(select distinct x from unnest(coalesce(p_reasons, '{}')) x where x <> '')) r(reason)
        union all
        select (p_created at time zone 'UTC')::date, p_flow, t.tag, '', '', p_change, false,
               reporting_latency_bucket(extract(epoch from (p_decided - p_created)) * 1000)
          from unnest(array[''] || coalesce(p_tags, '{}')) t(tag)
         where p_status in ('approved', 'rejected') and p_change is not null and p_decided is not null
      $$;`);

    const cols = `"merchant_id", "mode", "day", "flow_id", "tag_id", "reason_code", "status", "change_reason", "submitted", "latency_bucket"`;
    const keysOf = (row: string, tags: string) =>
      `reporting_keys(${row}."created_at", ${row}."flow_id", ${row}."status", ${row}."change_reason", ${row}."reason_codes", ${row}."submitted_at" is not null, ${row}."decided_at", ${tags})`;
    this.addSql(`create function "reporting_on_verification"() returns trigger language plpgsql as $$
      declare tags text[];
      begin
        if tg_op = 'UPDATE' and old."status" = new."status" and old."change_reason" is not distinct from new."change_reason"
           and old."reason_codes" is not distinct from new."reason_codes" and old."flow_id" = new."flow_id"
           and old."decided_at" is not distinct from new."decided_at" and old."submitted_at" is not distinct from new."submitted_at"
           and old."created_at" = new."created_at" and old."merchant_id" = new."merchant_id" and old."mode" = new."mode" then
          return null;
        end if;
        tags := array(select vt."tag_id" from "verification_tags" vt where vt."verification_id" = coalesce(new."id", old."id"));
        if tg_op in ('UPDATE', 'DELETE') then
          insert into "reporting_deltas" (${cols}, "n") select old."merchant_id", old."mode", k.*, -1 from ${keysOf('old', 'tags')} k;
        end if;
        if tg_op in ('UPDATE', 'INSERT') then
          insert into "reporting_deltas" (${cols}, "n") select new."merchant_id", new."mode", k.*, 1 from ${keysOf('new', 'tags')} k;
        end if;
        return null;
      end $$;`);
    this.addSql(
      `create trigger "reporting_on_verification" after insert or update or delete on "verifications" for each row execute function "reporting_on_verification"();`,
    );
    // A tag put on or taken off moves that tag's keys. Locking the verification orders this
    // against a concurrent status change, whose trigger then reads the committed tag set.
    this.addSql(`create function "reporting_on_verification_tag"() returns trigger language plpgsql as $$
      declare v "verifications"%rowtype; t text; s int;
      begin
        if tg_op = 'INSERT' then t := new."tag_id"; s := 1; else t := old."tag_id"; s := -1; end if;
        select * into v from "verifications" where "id" = coalesce(new."verification_id", old."verification_id") for no key update;
        if not found then return null; end if;
        insert into "reporting_deltas" (${cols}, "n") select v."merchant_id", v."mode", k.*, s from ${keysOf('v', 'array[t]')} k where k."tag_id" = t;
        return null;
      end $$;`);
    this.addSql(
      `create trigger "reporting_on_verification_tag" after insert or delete on "verification_tags" for each row execute function "reporting_on_verification_tag"();`,
    );
    this.addSql(`insert into "reporting_rollup" (${cols}, "n")
      select v."merchant_id", v."mode", k.*, count(*) from "verifications" v
       cross join lateral ${keysOf('v', `array(select vt."tag_id" from "verification_tags" vt where vt."verification_id" = v."id")`)} k
       group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10;`);

    this
      .addSql(`create table "usage_rollup" ("merchant_id" varchar(40) not null, "mode" varchar(10) not null, "day" date not null, "check_type" varchar(30) not null,
      "billable" boolean not null, "n" bigint not null, constraint "usage_rollup_pkey" primary key ("merchant_id", "mode", "day", "check_type", "billable"));`);
    this
      .addSql(`create table "usage_deltas" ("id" bigserial primary key, "merchant_id" varchar(40) not null, "mode" varchar(10) not null, "day" date not null,
      "check_type" varchar(30) not null, "billable" boolean not null, "n" int not null);`);
    this.addSql(`create index "usage_deltas_tenant_index" on "usage_deltas" ("merchant_id", "mode");`);
    this.addSql(`create function "reporting_on_usage"() returns trigger language plpgsql as $$
      begin
        if tg_op in ('UPDATE', 'DELETE') then
          insert into "usage_deltas" ("merchant_id", "mode", "day", "check_type", "billable", "n")
          values (old."merchant_id", old."mode", (old."created_at" at time zone 'UTC')::date, old."check_type", old."billable", -1);
        end if;
        if tg_op in ('UPDATE', 'INSERT') then
          insert into "usage_deltas" ("merchant_id", "mode", "day", "check_type", "billable", "n")
          values (new."merchant_id", new."mode", (new."created_at" at time zone 'UTC')::date, new."check_type", new."billable", 1);
        end if;
        return null;
      end $$;`);
    this.addSql(
      `create trigger "reporting_on_usage" after insert or update or delete on "usage_records" for each row execute function "reporting_on_usage"();`,
    );
    this
      .addSql(`insert into "usage_rollup" select "merchant_id", "mode", ("created_at" at time zone 'UTC')::date, "check_type", "billable", count(*)
      from "usage_records" group by 1, 2, 3, 4, 5;`);

    // Persons (applicants) newest first across the seat's environments, and their attempts.
    this.addSql(
      `create index "applicants_merchant_created_index" on "applicants" ("merchant_id", "created_at" desc, "id" desc);`,
    );
    this.addSql(
      `create index "verifications_applicant_created_index" on "verifications" ("applicant_id", "created_at" desc) where "applicant_id" is not null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "verifications_applicant_created_index";`);
    this.addSql(`drop index if exists "applicants_merchant_created_index";`);
    this.addSql(`drop trigger if exists "reporting_on_usage" on "usage_records";`);
    this.addSql(`drop function if exists "reporting_on_usage"();`);
    this.addSql(`drop table if exists "usage_deltas";`);
    this.addSql(`drop table if exists "usage_rollup";`);
    this.addSql(`drop trigger if exists "reporting_on_verification_tag" on "verification_tags";`);
    this.addSql(`drop function if exists "reporting_on_verification_tag"();`);
    this.addSql(`drop trigger if exists "reporting_on_verification" on "verifications";`);
    this.addSql(`drop function if exists "reporting_on_verification"();`);
    this.addSql(
      `drop function if exists "reporting_keys"(timestamptz, text, text, text, text[], boolean, timestamptz, text[]);`,
    );
    this.addSql(`drop function if exists "reporting_latency_bucket"(double precision);`);
    this.addSql(`drop table if exists "reporting_deltas";`);
    this.addSql(`drop table if exists "reporting_rollup";`);
    this.addSql(`drop trigger if exists "verifications_mark_submitted" on "verifications";`);
    this.addSql(`drop function if exists "verifications_mark_submitted"();`);
    this.addSql(`alter table "verifications" drop column if exists "submitted_at";`);
  }
}
