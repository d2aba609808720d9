import { z } from 'zod';
import { createFlowInput, normaliseFlowFields, updateFlowInput, type FlowFields } from '../services/catalog/index.js';
import { fromWireNames, renamedShape } from '../services/shared/index.js';
import { listQuery } from './validate.js';

/** Request shapes of /v1/flows: the catalog's flow rules under the REST body's snake_case names. */

export const FLOW_ID_RE = /^flw_[0-9A-Za-z]+$/;

export const listFlowsQuery = listQuery(FLOW_ID_RE);

const WIRE_NAMES: Record<string, string> = {
  isDefault: 'is_default',
  brandName: 'brand_name',
  logoUrl: 'logo_url',
  accentColor: 'accent_color',
  supportUrl: 'support_url',
  privacyUrl: 'privacy_url',
  defaultEmailLocale: 'default_email_locale',
  countryPolicy: 'country_policy',
  networkPolicy: 'network_policy',
  expiryPolicy: 'expiry_policy',
  policyTree: 'policy_tree',
  acceptedDocumentTypes: 'accepted_document_types',
  repeatPolicy: 'repeat_policy',
};

export const createFlowBody = z.strictObject(renamedShape(createFlowInput.shape, WIRE_NAMES));
export const updateFlowBody = z.strictObject(renamedShape(updateFlowInput.shape, WIRE_NAMES));

/** The service's input from a validated body. */
export const toFlowFields = (body: Record<string, unknown>): FlowFields =>
  normaliseFlowFields(fromWireNames<z.output<typeof updateFlowInput>>(body, WIRE_NAMES));

/** POST /v1/flows/{id}/preview takes no body fields. */
export const previewFlowBody = z.strictObject({});
