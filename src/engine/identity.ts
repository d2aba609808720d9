import type { DocumentRead, Identity } from './types.js';

/** applicant.fields (decisions.md keys) as read off the document, plus the email given at create. */
export function applicantFields(identity: Identity): Record<string, string> {
  const doc: DocumentRead = identity.document ?? {};
  const fields: Record<string, string | undefined> = {
    first_name: doc.first_name,
    last_name: doc.last_name,
    date_of_birth: doc.date_of_birth,
    sex: doc.sex,
    nationality: doc.nationality,
    document_type: doc.type,
    document_number: doc.number,
    issuing_country: doc.issuing_country,
    expiry_date: doc.expiry_date,
    national_id: doc.national_id,
    address: doc.address,
    email: identity.email,
    ...identity.fields,
  };
  return Object.fromEntries(Object.entries(fields).filter((e): e is [string, string] => typeof e[1] === 'string'));
}
