import { print } from 'graphql';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { ApiResponse, TestServer } from './test-server.js';

/** Runs a codegen-typed document against the server as the member holding `token`. */
export async function gql<Result, Variables>(
  server: TestServer,
  token: string,
  document: TypedDocumentNode<Result, Variables>,
  variables?: Variables,
): Promise<ApiResponse<{ data?: Result; errors?: { message: string; extensions: Record<string, any> }[] }>> {
  return server.graphql(token, print(document), variables as Record<string, unknown> | undefined);
}
