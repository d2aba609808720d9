import { Entity, ManyToOne, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../ids.js';
import { TenantOwned } from './scoped.js';
import { type Verdict, Verification } from './verification.entity.js';

export type CheckStatus = 'pending' | 'processing' | 'completed' | 'skipped' | 'errored';

/** One check of a verification, in flow order; its result is saved as it finishes. */
@Entity({ tableName: 'checks' })
export class Check extends TenantOwned {
  [OptionalProps]?:
    | 'id'
    | 'status'
    | 'verdict'
    | 'score'
    | 'providerTier'
    | 'reasonCodes'
    | 'findings'
    | 'config'
    | 'sensitivity'
    | 'threshold'
    | 'createdAt'
    | 'updatedAt';

  @PrimaryKey({ type: 'string', length: 40 })
  id: string = newId('chk');

  @ManyToOne(() => Verification, { fieldName: 'verification_id', index: true })
  verification!: Verification;

  @Property({ type: 'integer' })
  position!: number;

  @Property({ type: 'string', length: 30 })
  type!: string;

  @Property({ type: 'boolean' })
  required!: boolean;

  @Property({ type: 'double', nullable: true })
  sensitivity?: number | null = null;

  @Property({ type: 'double', nullable: true })
  threshold?: number | null = null;

  @Property({ type: 'json' })
  config: Record<string, unknown> = {};

  @Property({ type: 'string', length: 20 })
  status: CheckStatus = 'pending';

  @Property({ type: 'string', length: 10, nullable: true })
  verdict?: Verdict | null = null;

  @Property({ type: 'double', nullable: true })
  score?: number | null = null;

  @Property({ type: 'string', length: 30 })
  providerTier: string = 'standard';

  @Property({ type: 'string[]', columnType: 'text[]' })
  reasonCodes: string[] = [];

  /** What the check found (AML hits with list, entry id and score; fraud-network signals): ids and scores, never identity. */
  @Property({ type: 'json' })
  findings: Record<string, unknown>[] = [];
}
