import { z } from 'zod';
import { CHECK_TYPES, DOCUMENT_TYPES } from '../services/catalog/index.js';

const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD');
const reasonCode = z.string().regex(/^[A-Z][A-Z0-9_]{1,63}$/, 'must be an UPPER_SNAKE_CASE code');

/** A check item has the Step shape (decisions.md). */
export const stepSchema = z.strictObject({
  /** document, liveness, face_match, age, aml or email. */
  type: z.enum(CHECK_TYPES),
  /** Default true; a rejecting required check rejects the verification. */
  required: z.boolean().default(true),
  /** 0 to 1. */
  sensitivity: z.number().min(0).max(1).nullable().optional(),
  /** 0 to 1. */
  threshold: z.number().min(0).max(1).nullable().optional(),
  /** For age steps: ageRules [{fromAge, toAge, action}] and ageRuleFallback. */
  config: z
    .object({
      ageRules: z
        .array(
          z.strictObject({
            fromAge: z.number().int().min(0),
            toAge: z.number().int().min(0),
            action: z.enum(['reject', 'review', 'pass']),
          }),
        )
        .max(20)
        .optional(),
      ageRuleFallback: z.enum(['reject', 'review', 'pass']).optional(),
    })
    .catchall(z.unknown())
    .optional(),
});

const metadata = z
  .record(
    z.string().min(1).max(40, 'keys are at most 40 characters'),
    z.string().max(500, 'values are at most 500 characters'),
  )
  .refine((m) => Object.keys(m).length <= 50, 'at most 50 keys');

export const createVerificationBody = z.strictObject({
  /** A flow id of the key's environment; not together with checks. */
  flow: z.string().min(1).max(64).optional(),
  /** Inline steps, run in order. */
  checks: z.array(stepSchema).min(1).max(20).optional(),
  applicant: z
    .strictObject({
      /** The integrator's id for the person (matched first, R2). */
      reference_id: z.string().min(1).max(255).optional(),
      /** At most 254 characters. */
      email: z
        .string()
        .trim()
        .max(254, 'must be at most 254 characters')
        .regex(/^[^@\s]+@[^@\s]+\.[^@\s]+$/, 'must be an email address')
        .optional(),
    })
    .optional(),
  /** BCP 47 tag, default en. */
  locale: z.string().min(2).max(35).optional(),
  /** Flat: at most 50 keys of at most 40 characters, string values of at most 500. */
  metadata: metadata.optional(),
  /** Where the hosted page's end screen sends the applicant back: https (http on localhost in sandbox), at most 2,048 characters. */
  return_url: z.string().min(1).max(2048, 'must be at most 2048 characters').optional(),
  /** Sandbox simulation (sandbox keys only). */
  sandbox: z
    .strictObject({
      outcome: z.enum(['approved', 'rejected', 'review', 'pending']),
      document: z
        .strictObject({
          number: z.string().min(1).max(64).optional(),
          national_id: z.string().min(1).max(64).optional(),
          type: z.enum(DOCUMENT_TYPES).optional(),
          issuing_country: z
            .string()
            .regex(/^[A-Z]{3}$/, 'must be ISO 3166 alpha-3')
            .optional(),
          date_of_birth: date.optional(),
          expiry_date: z.string().max(32).optional(),
          first_name: z.string().max(100).optional(),
          last_name: z.string().max(100).optional(),
          nationality: z
            .string()
            .regex(/^[A-Z]{3}$/)
            .optional(),
          mrz: z
            .strictObject({ document_number: z.string().max(64).optional(), date_of_birth: date.optional() })
            .optional(),
        })
        .optional(),
      reason_codes: z.array(reasonCode).max(10).optional(),
    })
    .optional(),
});

export const VERIFICATION_STATUSES = [
  'pending',
  'processing',
  'approved',
  'rejected',
  'manual_review',
  'expired',
] as const;
