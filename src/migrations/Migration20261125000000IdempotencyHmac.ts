import { Migration } from '@mikro-orm/migrations';

/** Idempotency-Key rows keep an `h1:`-prefixed keyed HMAC of the body (67 characters), not a plain SHA-256. */
export class Migration20261125000000IdempotencyHmac extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "idempotency_keys" alter column "request_hash" type varchar(80);`);
  }

  override async down(): Promise<void> {
    this.addSql(`delete from "idempotency_keys" where length("request_hash") > 64;`);
    this.addSql(`alter table "idempotency_keys" alter column "request_hash" type varchar(64);`);
  }
}
