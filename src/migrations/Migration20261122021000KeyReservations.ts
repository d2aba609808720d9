import { Migration } from '@mikro-orm/migrations';

/**
 * Key authentication that can reserve tokens: a process takes `p_cost` plus up to
 * `p_reserve` extra tokens from the shared bucket when they are available, spends the extra
 * locally, and comes back when they run out. The budget still holds across processes.
 */
export class Migration20261122021000KeyReservations extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create or replace function idv_authenticate_key_reserve(p_hash text, p_cost integer, p_capacity integer, p_reserve integer)
returns table (
  id uuid, merchant_id varchar, mode varchar, name varchar, permissions text[], access varchar,
  status varchar, expires_at timestamptz, allowed boolean, tokens double precision, granted integer
) language plpgsql as $fn$
declare
  k api_keys%rowtype;
  v_now timestamptz := clock_timestamp();
  v_available double precision;
  v_take integer;
begin
  select * into k from api_keys where api_keys.secret_hash = p_hash;
  if not found then
    return;
  end if;
  if k.status <> 'active' or (k.expires_at is not null and k.expires_at <= v_now) then
    return query select k.id, k.merchant_id, k.mode, k.name, k.permissions, k.access, k.status, k.expires_at, false, 0::double precision, 0;
    return;
  end if;
  insert into rate_limit_buckets as b (api_key_id, tokens, refilled_at, allowed)
    values (k.id, p_capacity, v_now, true)
  on conflict (api_key_id) do update set
    tokens = least(p_capacity, b.tokens + extract(epoch from (v_now - b.refilled_at)) * p_capacity / 60.0),
    refilled_at = v_now
  returning b.tokens into v_available;
  if v_available >= p_cost then
    v_take := p_cost + greatest(0, least(p_reserve, floor(v_available - p_cost)::integer));
    update rate_limit_buckets set tokens = v_available - v_take, allowed = true where api_key_id = k.id;
  else
    v_take := 0;
    update rate_limit_buckets set allowed = false where api_key_id = k.id;
  end if;
  update api_keys set last_used_at = v_now
    where api_keys.id = k.id and (api_keys.last_used_at is null or api_keys.last_used_at < v_now - interval '60 seconds');
  return query select k.id, k.merchant_id, k.mode, k.name, k.permissions, k.access, k.status, k.expires_at,
    v_take > 0, v_available - v_take, v_take;
end
$fn$;`);
  }

  override async down(): Promise<void> {
    this.addSql('drop function if exists idv_authenticate_key_reserve(text, integer, integer, integer);');
  }
}
