import { Migration } from '@mikro-orm/migrations';

/** Accounts, members and their sessions, API keys, and the shared rate-limit budget. */
export class Migration20261122000000Foundation extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "merchants" ("id" varchar(40) not null, "name" varchar(200) not null, "slug" varchar(100) not null, "status" varchar(20) not null default 'active', "tier" varchar(20) not null default 'standard', "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, constraint "merchants_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "merchants" add constraint "merchants_slug_unique" unique ("slug");`);

    this.addSql(
      `create table "members" ("id" varchar(40) not null, "merchant_id" varchar(40) not null references "merchants" ("id") on update cascade, "created_at" timestamptz(3) not null, "email" varchar(254) not null, "name" varchar(200) not null, "password_hash" varchar(200) not null, "permissions" text[] not null, "environments" text[] not null, "updated_at" timestamptz(3) not null, constraint "members_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "members_merchant_id_index" on "members" ("merchant_id");`);
    this.addSql(`alter table "members" add constraint "members_email_unique" unique ("email");`);

    this.addSql(
      `create table "member_sessions" ("id" uuid not null, "merchant_id" varchar(40) not null references "merchants" ("id") on update cascade, "created_at" timestamptz(3) not null, "member_id" varchar(40) not null references "members" ("id") on update cascade, "token_hash" varchar(64) not null, "expires_at" timestamptz(3) not null, "revoked_at" timestamptz(3) null, constraint "member_sessions_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "member_sessions_merchant_id_index" on "member_sessions" ("merchant_id");`);
    this.addSql(`create index "member_sessions_member_id_index" on "member_sessions" ("member_id");`);
    this.addSql(
      `alter table "member_sessions" add constraint "member_sessions_token_hash_unique" unique ("token_hash");`,
    );
    this.addSql(`create index "member_sessions_expires_at_index" on "member_sessions" ("expires_at");`);

    this.addSql(
      `create table "api_keys" ("id" uuid not null, "merchant_id" varchar(40) not null references "merchants" ("id") on update cascade, "created_at" timestamptz(3) not null, "mode" varchar(10) not null check ("mode" in ('sandbox', 'live')), "updated_at" timestamptz(3) not null, "name" varchar(200) not null, "secret_hash" varchar(64) not null, "key_prefix" varchar(12) not null, "permissions" text[] not null, "access" varchar(20) not null default 'read_write', "status" varchar(20) not null default 'active', "last_used_at" timestamptz(3) null, "expires_at" timestamptz(3) null, "revoked_at" timestamptz(3) null, constraint "api_keys_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "api_keys_merchant_id_index" on "api_keys" ("merchant_id");`);
    this.addSql(`alter table "api_keys" add constraint "api_keys_secret_hash_unique" unique ("secret_hash");`);
    this.addSql(
      `create index "api_keys_merchant_id_mode_created_at_id_index" on "api_keys" ("merchant_id", "mode", "created_at" desc, "id" desc);`,
    );

    // Token bucket per key, shared by every server process (decisions.md: the budget holds across processes).
    this.addSql(
      `create table "rate_limit_buckets" ("api_key_id" uuid not null primary key references "api_keys" ("id") on delete cascade, "tokens" double precision not null, "refilled_at" timestamptz not null, "allowed" boolean not null);`,
    );

    // Authenticates a key by its SHA-256 and spends its budget in one round trip.
    // last_used_at is written at most once a minute, not on every request.
    this.addSql(`
create or replace function idv_authenticate_key(p_hash text, p_cost integer, p_capacity integer)
returns table (
  id uuid, merchant_id varchar, mode varchar, name varchar, permissions text[], access varchar,
  status varchar, expires_at timestamptz, allowed boolean, tokens double precision
) language plpgsql as $fn$
declare
  k api_keys%rowtype;
  v_now timestamptz := clock_timestamp();
  v_tokens double precision;
  v_allowed boolean;
begin
  select * into k from api_keys where api_keys.secret_hash = p_hash;
  if not found then
    return;
  end if;
  if k.status <> 'active' or (k.expires_at is not null and k.expires_at <= v_now) then
    return query select k.id, k.merchant_id, k.mode, k.name, k.permissions, k.access, k.status, k.expires_at, false, 0::double precision;
    return;
  end if;
  insert into rate_limit_buckets as b (api_key_id, tokens, refilled_at, allowed)
    values (k.id, greatest(p_capacity - p_cost, 0), v_now, p_cost <= p_capacity)
  on conflict (api_key_id) do update set
    tokens = case
      when least(p_capacity, b.tokens + extract(epoch from (v_now - b.refilled_at)) * p_capacity / 60.0) >= p_cost
        then least(p_capacity, b.tokens + extract(epoch from (v_now - b.refilled_at)) * p_capacity / 60.0) - p_cost
      else least(p_capacity, b.tokens + extract(epoch from (v_now - b.refilled_at)) * p_capacity / 60.0)
    end,
    allowed = least(p_capacity, b.tokens + extract(epoch from (v_now - b.refilled_at)) * p_capacity / 60.0) >= p_cost,
    refilled_at = v_now
  returning b.tokens, b.allowed into v_tokens, v_allowed;
  update api_keys set last_used_at = v_now
    where api_keys.id = k.id and (api_keys.last_used_at is null or api_keys.last_used_at < v_now - interval '60 seconds');
  return query select k.id, k.merchant_id, k.mode, k.name, k.permissions, k.access, k.status, k.expires_at, v_allowed, v_tokens;
end
$fn$;`);
  }

  override async down(): Promise<void> {
    this.addSql('drop function if exists idv_authenticate_key(text, integer, integer);');
    this.addSql(
      'drop table if exists "rate_limit_buckets", "api_keys", "member_sessions", "members", "merchants" cascade;',
    );
  }
}
