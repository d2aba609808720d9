import { Migration } from '@mikro-orm/migrations';

/**
 * Face networks through an index (issue 28): each face signal carries its LSH bucket keys
 * (src/services/fraud-networks/face-index.ts) in `face_buckets`, GIN-indexed, so a search reads
 * only the faces sharing a bucket and compares those exactly. Faces stored before have no
 * buckets (they were embeddings of another model, which the new descriptor cannot be compared
 * with) and are left out of searches.
 */
export class Migration20261126030000FaceIndex extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "fraud_signals" add column "face_buckets" int[] null;`);
    this.addSql(
      `create index "fraud_signals_face_buckets_index" on "fraud_signals" using gin ("face_buckets") where "kind" = 'face';`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "fraud_signals_face_buckets_index";`);
    this.addSql(`alter table "fraud_signals" drop column if exists "face_buckets";`);
  }
}
