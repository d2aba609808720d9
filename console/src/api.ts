import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';

/** A GraphQL failure with the service's code (extensions.code) and detail. */
export class GraphqlError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
    readonly detail?: Record<string, unknown>,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** The session token lives in this module only: never in storage, a cookie or a URL. */
let token: string | null = null;
let onUnauthenticated: () => void = () => {};

export const setToken = (value: string | null) => {
  token = value;
};
export const hasToken = () => token !== null;
export const currentToken = () => token;
export const whenSignedOut = (handler: () => void) => {
  onUnauthenticated = handler;
};

/** Runs one typed operation against /graphql (the app's only endpoint). */
export async function gql<Result, Variables>(
  document: DocumentTypeDecoration<Result, Variables>,
  variables?: Variables,
): Promise<Result> {
  const query = String(document);
  const operationName = /(?:query|mutation)\s+(\w+)/.exec(query)?.[1];
  const response = await fetch('/graphql', {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json',
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({ query, operationName, variables: variables ?? {} }),
    credentials: 'omit',
    cache: 'no-store',
  });
  const body = (await response.json().catch(() => ({}))) as {
    data?: Result;
    errors?: { message: string; extensions?: { code?: string; detail?: Record<string, unknown> } }[];
  };
  const first = body.errors?.[0];
  if (first) {
    const code = first.extensions?.code;
    if (
      response.status === 401 ||
      code === 'SESSION_INVALID' ||
      code === 'SESSION_EXPIRED' ||
      code === 'SESSION_MISSING'
    ) {
      if (operationName !== 'SignIn') {
        token = null;
        onUnauthenticated();
      }
    }
    throw new GraphqlError(first.message, code, first.extensions?.detail, response.status);
  }
  if (!body.data)
    throw new GraphqlError(`The service answered ${response.status}.`, 'HTTP_ERROR', undefined, response.status);
  return body.data;
}
