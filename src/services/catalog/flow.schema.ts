import { z } from 'zod';
import { CHECK_TYPES, DOCUMENT_TYPES } from './flow-resolution.js';
import type { FlowFields } from './flow.service.js';

/** The rules of a flow's fields, shared by /v1/flows and the GraphQL flow mutations; one `/** *\/` line per field. */

const unit = z.number().min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1');
/** A lower-case word such as `reject`, `review`, `ignore`, `run_and_decide`. */
const word = z.string().regex(/^[a-z][a-z0-9_]{0,39}$/, 'must be a lower-case word such as reject');
/** What an age band does; an unknown word must not silently approve. */
const ageAction = z.enum(['reject', 'review', 'pass']);
/** What an expired document does: reject, review, or accept / ignore (treat as valid). */
const expiryDisposition = z.enum(['reject', 'review', 'accept', 'ignore']);
/** ISO 3166 alpha-2 or alpha-3, stored upper case. */
const country = z
  .string()
  .regex(/^[A-Za-z]{2,3}$/, 'must be an ISO 3166 alpha-2 or alpha-3 country code')
  .transform((c) => c.toUpperCase());
const countries = z.array(country).max(300);
const checkType = z.enum(CHECK_TYPES);
const documentType = z.enum(DOCUMENT_TYPES);
const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }).max(2048);
const httpsUrl = z
  .url({ protocol: /^https$/, error: 'must be an https URL' })
  .max(2048, 'must be at most 2048 characters');

/** A BCP 47 language tag (`en`, `de-CH`), kept as sent. */
const languageTag = z
  .string()
  .max(35)
  .refine((tag) => {
    try {
      return Intl.getCanonicalLocales(tag).length === 1;
    } catch {
      return false;
    }
  }, 'must be a BCP 47 language tag such as en or de-CH');

const ageConfig = z.looseObject({
  /** Age bands and what each does: `{ fromAge, toAge, action }`. */
  ageRules: z
    .array(
      z
        .strictObject({ fromAge: z.number().min(0).max(150), toAge: z.number().min(0).max(150), action: ageAction })
        .refine((rule) => rule.fromAge <= rule.toAge, { message: 'fromAge must not exceed toAge', path: ['toAge'] }),
    )
    .max(50)
    .optional(),
  /** What an age outside every band does, e.g. `pass`. */
  ageRuleFallback: ageAction.optional(),
});

const amlConfig = z.looseObject({
  /** What a sanctions or watchlist hit does: `review` (default) or `reject`. */
  on_match: z.enum(['review', 'reject']).optional(),
  /** What a politically exposed person hit does: `review` (default), `reject` or `ignore`. */
  on_pep_match: z.enum(['review', 'reject', 'ignore']).optional(),
  /** Screen only these lists (names as in findings' `list`); default every loaded list. */
  lists: z.array(z.string().min(1).max(100)).max(50).optional(),
});

const emailConfig = z.looseObject({
  /** What a disposable address does: `review` (default), `reject` or `ignore`. */
  on_disposable: z.enum(['review', 'reject', 'ignore']).optional(),
  /** Whether an address not confirmed by the hosted page's one-time code goes to review. */
  require_confirmation: z.boolean().optional(),
});

const livenessConfig = z.strictObject({
  /** `active`: the hosted page's random challenge, verified on the server; `passive`: the frames checked without one (the only mode for key-API uploads). Unset: active when the hosted page asked for a challenge. */
  mode: z.enum(['active', 'passive']).optional(),
});

const STEP_CONFIGS: Partial<Record<string, z.ZodType>> = {
  age: ageConfig,
  aml: amlConfig,
  email: emailConfig,
  liveness: livenessConfig,
};

/** One step of a flow (also the shape of an inline `checks` item). */
export const stepSchema = z
  .strictObject({
    /** One of the check types: document, liveness, face_match, age, aml, email. */
    type: checkType,
    /** Whether the step's failure fails the session; default true. */
    required: z.boolean().default(true),
    /** 0 to 1; null: the flow's sensitivity. */
    sensitivity: unit.nullable().optional(),
    /** 0 to 1 pass threshold; null: the check's default. */
    threshold: unit.nullable().optional(),
    /** Check-specific settings: age `ageRules` and `ageRuleFallback`; aml `on_match`, `on_pep_match`, `lists`; email `on_disposable`, `require_confirmation`; liveness `mode`. */
    config: z.record(z.string(), z.unknown()).optional(),
  })
  .superRefine((step, ctx) => {
    const schema = STEP_CONFIGS[step.type];
    if (!schema || !step.config) return;
    const parsed = schema.safeParse(step.config);
    if (!parsed.success)
      for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, path: ['config', ...issue.path] } as never);
  });

const countryPolicy = z.strictObject({
  /** Countries allowed (empty: every country not blocked). */
  allow: countries.optional(),
  /** Countries refused. */
  block: countries.optional(),
  /** Countries sent to manual review. */
  review: countries.optional(),
  /** Whether the country is checked before the applicant starts. */
  gate_before_start: z.boolean().optional(),
  /** What a blocked country does to the run, e.g. `run_and_decide`. */
  blocked_mode: word.optional(),
  /** The outcome for a blocked country, e.g. `reject`. */
  blocked_disposition: word.optional(),
});

const networkPolicy = z.strictObject({
  /** Whether network signals are evaluated. */
  enabled: z.boolean().optional(),
  /** What a proxy or VPN does, e.g. `ignore`. */
  on_proxy: word.optional(),
  /** What an IP change during the session does, e.g. `ignore`. */
  on_ip_change: word.optional(),
  /** Countries the network policy does not apply to. */
  exempt_countries: countries.optional(),
});

const expiryPolicy = z.strictObject({
  /** What an expired document does unless a rule matches, e.g. `reject`. */
  default: expiryDisposition.optional(),
  /** Per country and document type (`*` = any) dispositions. */
  rules: z
    .array(
      z.strictObject({
        country: z.union([z.literal('*'), country]),
        document_type: z.union([z.literal('*'), documentType]),
        disposition: expiryDisposition,
      }),
    )
    .max(500)
    .optional(),
});

const finding = z.strictObject({
  disposition: word,
  threshold: z.number().optional(),
  note: z.string().max(1000).optional(),
  expires_at: z.iso.datetime({ offset: true }).optional(),
});

const leafShape = {
  sensitivity: unit.optional(),
  sensitivity_by_check: z.partialRecord(checkType, unit).optional(),
  findings: z
    .record(z.string().regex(/^[A-Z][A-Z0-9_]*$/, 'must be an upper snake case finding code'), finding)
    .optional(),
};
const leaf = z.strictObject(leafShape);
const byDocumentType = z.record(z.string().min(1).max(40), leaf);
const policyNode = z.strictObject({ ...leafShape, by_document_type: byDocumentType.optional() });

const policyTree = z.strictObject({
  ...leafShape,
  /** Country (ISO code) to a node with `by_document_type` and leaf fields. */
  by_country: z.record(z.string().regex(/^[A-Za-z]{2,3}$/, 'must be an ISO country code'), policyNode).optional(),
  /** Document type to a leaf, for trees written before `by_country`. */
  legacy_by_document_type: byDocumentType.optional(),
});

const repeatPolicy = z.strictObject({
  /** Whether repeats are refused on this flow. */
  enabled: z.boolean(),
  /** `same_flow` (default) or `any`. */
  scope: z.enum(['same_flow', 'any']).default('same_flow'),
});

export const flowShape = {
  /** Display name, 1-200 characters. */
  name: z.string().trim().min(1, 'must not be empty').max(200),
  /** Ordered steps; replaced wholesale on update. */
  steps: z.array(stepSchema).max(20),
  /** Marks the environment's default flow; the previous default loses the mark. */
  isDefault: z.boolean(),
  /** `active` or `archived`; an archived flow starts no new verification. */
  status: z.enum(['active', 'archived']),
  /** 0 to 1, the flow-wide sensitivity. */
  sensitivity: unit.nullable(),
  /** Hosted-page branding. */
  brandName: z.string().trim().min(1).max(200).nullable(),
  logoUrl: httpUrl.nullable(),
  accentColor: z
    .string()
    .regex(/^#[0-9A-Fa-f]{6}$/, 'must be a #RRGGBB colour')
    .nullable(),
  supportUrl: httpUrl.nullable(),
  /** The company's privacy notice, linked from the hosted consent step; https, at most 2,048 characters. */
  privacyUrl: httpsUrl.nullable(),
  /** BCP 47 tags offered on the hosted page. */
  languages: z.array(languageTag).max(50),
  /** BCP 47 tag of the emails' default language. */
  defaultEmailLocale: languageTag.nullable(),
  countryPolicy: countryPolicy.nullable(),
  networkPolicy: networkPolicy.nullable(),
  expiryPolicy: expiryPolicy.nullable(),
  policyTree: policyTree.nullable(),
  /** Document types the flow accepts; empty: unrestricted. */
  acceptedDocumentTypes: z.array(documentType).max(DOCUMENT_TYPES.length * 2),
  /** Replaces the account's repeat-verification setting for this flow; null: the account's. */
  repeatPolicy: repeatPolicy.nullable(),
};

const optionalFields = Object.fromEntries(Object.entries(flowShape).map(([k, v]) => [k, v.optional()])) as {
  [K in keyof typeof flowShape]: z.ZodOptional<(typeof flowShape)[K]>;
};

/** A new flow's fields (name required); both surfaces validate with it under their own key names. */
export const createFlowInput = z.strictObject({ ...optionalFields, name: flowShape.name });

export const updateFlowInput = z.strictObject({
  ...optionalFields,
  /** The version read; another version answers 409 STALE_VERSION and applies nothing. */
  version: z.number().int().min(1).optional(),
});

type FlowInput = z.output<typeof updateFlowInput>;

const dedupe = <T>(list: T[] | undefined) => (list ? [...new Set(list)] : undefined);

/** The service's input from validated fields: lists deduplicated, colours upper case; absent stays undefined, null clears. */
export function normaliseFlowFields(input: FlowInput): FlowFields {
  const { version: _version, ...fields } = input;
  const normal: FlowFields = {
    ...(fields as FlowFields),
    accentColor: fields.accentColor?.toUpperCase() ?? fields.accentColor,
    languages: dedupe(fields.languages),
    acceptedDocumentTypes: dedupe(fields.acceptedDocumentTypes),
  };
  return Object.fromEntries(Object.entries(normal).filter(([, v]) => v !== undefined)) as FlowFields;
}
