import { isNonNullType, isObjectType, type GraphQLField, type GraphQLObjectType, type GraphQLSchema } from 'graphql';
import type { z } from 'zod';
import * as contracts from '../../src/contracts/index.js';
import { buildGraphqlSchema } from '../../src/graphql/apollo.js';

// Issue 31: one output contract per resource. REST answers and the OpenAPI document come from
// the zod schemas in src/contracts; the GraphQL object types stay type-graphql classes and are
// checked here against the same schemas, so a field added to one surface and not the other, or
// a field whose nullability differs, fails until it is added or written down below as a
// deliberate difference.

/** How one contract maps onto one GraphQL object type. */
interface Pairing {
  contract: z.ZodObject;
  type: string;
  /** REST name -> GraphQL name, where the GraphQL field is not the camelCase of the REST one. */
  renamed?: Record<string, string>;
  /** Contract fields GraphQL does not have, and why. */
  restOnly?: Record<string, string>;
  /** GraphQL fields the contract does not have, and why. */
  graphqlOnly?: Record<string, string>;
  /** Fields (REST names) whose nullability differs on purpose, and why. */
  nullability?: Record<string, string>;
}

const STAMPS = 'REST documents its entity dates as nullable (always set); GraphQL says non-null';
const stamps = (...fields: string[]) => Object.fromEntries(fields.map((f) => [f, STAMPS]));
const ENVIRONMENT = { mode: 'environment' };
const ONCE = 'a secret shown once: GraphQL returns it beside the object (Created*/WithSecret payloads)';
const INCLUDED = 'REST include= data; GraphQL reads it through the console queries (revealIdentity, evidence)';

const verificationDifferences = {
  renamed: {},
  restOnly: {
    evidence: INCLUDED,
    client_token: 'REST create answer only; GraphQL creates no verification',
  },
  nullability: {
    ...stamps('created_at', 'updated_at', 'expires_at'),
    flow: 'GraphQL resolves the flow object (null once the flow is gone); REST names its id',
  },
};

const PAIRINGS: Pairing[] = [
  { contract: contracts.merchant, type: 'Merchant', nullability: stamps('created_at') },
  {
    contract: contracts.apiKey,
    type: 'ApiKey',
    restOnly: { secret_key: ONCE },
    nullability: stamps('created_at'),
  },
  {
    contract: contracts.member,
    type: 'Member',
    restOnly: { status: 'GraphQL answers deactivatedAt; REST also spells it as a status' },
  },
  {
    contract: contracts.accountSettings,
    type: 'AccountSettings',
    nullability: {
      retention_days: 'an open value (z.unknown) in the REST contract; always set',
      review_policy: 'an open value (z.unknown) in the REST contract; always set',
    },
  },
  { contract: contracts.consoleSession, type: 'ConsoleSession' },
  {
    contract: contracts.check,
    type: 'Check',
    nullability: {
      ...stamps('created_at', 'updated_at'),
      provider_tier: 'always set (default standard); REST documents it as nullable',
    },
  },
  {
    contract: contracts.evidence,
    type: 'EvidenceImage',
    restOnly: {
      mrz_valid: 'REST evidence summary; GraphQL exposes the image and its URL only',
      barcode_consistent: 'REST evidence summary; GraphQL exposes the image and its URL only',
      country: 'REST evidence summary; GraphQL exposes the image and its URL only',
      captured_at: 'REST evidence summary; GraphQL exposes the image and its URL only',
    },
  },
  {
    contract: contracts.verification,
    type: 'Verification',
    ...verificationDifferences,
    graphqlOnly: { decidedBy: 'the console field; REST has it on ConsoleVerification' },
  },
  { contract: contracts.consoleVerification, type: 'Verification', ...verificationDifferences },
  {
    contract: contracts.flow,
    type: 'Flow',
    nullability: stamps('created_at', 'updated_at'),
    graphqlOnly: {
      environment: 'REST flows are read in the key environment; the console spans both',
      isPreset: 'the built-in preset, shown read-only in the console',
    },
  },
  {
    contract: contracts.flowPreview,
    type: 'FlowPreview',
    renamed: { flow: 'flowId' },
    restOnly: {
      mode: 'not in the GraphQL payload (the preview runs in the flow environment)',
      client_token: 'GraphQL answers the url, whose fragment carries the token',
    },
  },
  { contract: contracts.flowDeleted, type: 'DeletedFlow' },
  {
    contract: contracts.tag,
    type: 'Tag',
    restOnly: { retired: 'the REST DELETE answer flag; GraphQL answers retiredAt' },
    nullability: stamps('created_at', 'updated_at'),
    graphqlOnly: {
      environment: 'the console spans both environments',
      retiredAt: 'when the tag was retired (REST answers retired: true once)',
    },
  },
  { contract: contracts.tagRef, type: 'TagReference' },
  { contract: contracts.tagRemoved, type: 'TagRemoval' },
  {
    contract: contracts.applicant,
    type: 'Applicant',
    nullability: stamps('created_at', 'updated_at'),
    graphqlOnly: {
      environment: 'the console spans both environments',
      tags: "REST answers an applicant's tags from POST .../tags",
    },
  },
  {
    contract: contracts.webhookEndpoint,
    type: 'WebhookEndpoint',
    restOnly: {
      api_key_ids: 'the key scoping of an endpoint is not exposed by GraphQL',
      signing_secret: ONCE,
    },
  },
  {
    contract: contracts.consoleReview,
    type: 'Review',
    renamed: { ...ENVIRONMENT },
    restOnly: {
      session_id: 'GraphQL resolves the verification object',
      raised_by_member_id: 'GraphQL answers it beside the review (EscalationReturn)',
    },
    nullability: stamps('created_at'),
    graphqlOnly: { verification: 'the verification under review (REST: session_id)' },
  },
  { contract: contracts.escalation, type: 'Escalation' },
  { contract: contracts.reviewPolicy, type: 'ReviewPolicy' },
  { contract: contracts.reviewLock, type: 'ReviewLock' },
  { contract: contracts.revealedIdentity, type: 'RevealedIdentity' },
  { contract: contracts.identityEdit, type: 'IdentityEdit' },
  { contract: contracts.auditEvent, type: 'AuditEvent', renamed: ENVIRONMENT },
  { contract: contracts.activity, type: 'Activity', renamed: ENVIRONMENT },
  { contract: contracts.requestLog, type: 'RequestLog', renamed: ENVIRONMENT },
  { contract: contracts.deliveryLog, type: 'DeliveryLog', renamed: ENVIRONMENT },
  { contract: contracts.overview, type: 'ReportingOverview', renamed: { modes: 'environments' } },
  {
    contract: contracts.analytics,
    type: 'ReportingAnalytics',
    renamed: { modes: 'environments' },
    nullability: { since: 'always set (the window start); GraphQL types it as the overview does' },
  },
  { contract: contracts.usageReport, type: 'UsageReport', renamed: { modes: 'environments' } },
  {
    contract: contracts.person,
    type: 'Person',
    renamed: ENVIRONMENT,
    restOnly: { latest: 'REST nests it; GraphQL flattens it (latestVerificationId, latestStatus)' },
    graphqlOnly: {
      latestVerificationId: 'REST latest.id',
      latestStatus: 'REST latest.status',
      history: 'REST answers it on the person detail (PersonDetail)',
    },
  },
  { contract: contracts.attempt, type: 'VerificationAttempt', renamed: { ...ENVIRONMENT, flow: 'flowId' } },
];

const camel = (name: string) => name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** Whether a contract field may be null or absent (GraphQL answers both as null). */
const mayBeNull = (field: z.ZodType) => field.safeParse(null).success || field.safeParse(undefined).success;

/** Every drift between `pairing`'s contract and its GraphQL type, as readable lines. */
function drift(schema: GraphQLSchema, pairing: Pairing): string[] {
  const type = schema.getType(pairing.type);
  if (!isObjectType(type)) return [`${pairing.type}: no such GraphQL object type`];
  const gqlFields = (type as GraphQLObjectType).getFields();
  const shape = pairing.contract.shape as Record<string, z.ZodType>;
  const problems: string[] = [];
  const matched = new Set<string>();
  for (const [rest, field] of Object.entries(shape)) {
    if (rest === 'object') continue;
    if (pairing.restOnly?.[rest]) continue;
    const name = pairing.renamed?.[rest] ?? camel(rest);
    const gql: GraphQLField<unknown, unknown> | undefined = gqlFields[name];
    if (!gql) {
      problems.push(`${pairing.type}.${name} is missing (contract field ${rest})`);
      continue;
    }
    matched.add(name);
    if (pairing.nullability?.[rest]) continue;
    const nullable = !isNonNullType(gql.type);
    if (mayBeNull(field) !== nullable)
      problems.push(
        `${pairing.type}.${name} is ${nullable ? 'nullable' : 'non-null'} but the contract's ${rest} is ${mayBeNull(field) ? 'nullable or optional' : 'required'}`,
      );
  }
  for (const name of Object.keys(gqlFields))
    if (!matched.has(name) && !pairing.graphqlOnly?.[name])
      problems.push(`${pairing.type}.${name} has no contract field (add it to the contract or to graphqlOnly)`);
  return problems;
}

let schema: GraphQLSchema;
beforeAll(async () => {
  schema = await buildGraphqlSchema();
});

describe('GraphQL object types against the output contracts', () => {
  it.each(PAIRINGS.map((p) => [p.type, p] as const))('%s covers its contract', (_, pairing) => {
    expect(drift(schema, pairing)).toEqual([]);
  });

  it('fails on drift: a contract field GraphQL lacks, and a nullability that differs', () => {
    const tag = PAIRINGS.find((p) => p.type === 'Tag')!;
    const extended = tag.contract.extend({
      shade: contracts.tag.shape.color,
      name: contracts.tag.shape.color.nullable(),
    });
    expect(drift(schema, { ...tag, contract: extended })).toEqual([
      "Tag.name is non-null but the contract's name is nullable or optional",
      'Tag.shade is missing (contract field shade)',
    ]);
  });

  it('every written difference names a field that exists', () => {
    for (const p of PAIRINGS) {
      const fields = Object.keys(
        schema.getType(p.type) && isObjectType(schema.getType(p.type))
          ? (schema.getType(p.type) as GraphQLObjectType).getFields()
          : {},
      );
      for (const rest of [
        ...Object.keys(p.restOnly ?? {}),
        ...Object.keys(p.nullability ?? {}),
        ...Object.keys(p.renamed ?? {}),
      ])
        expect([p.type, rest, rest in p.contract.shape]).toEqual([p.type, rest, true]);
      for (const name of Object.keys(p.graphqlOnly ?? {}))
        expect([p.type, name, fields.includes(name)]).toEqual([p.type, name, true]);
    }
  });
});
