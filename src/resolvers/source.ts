import type { Page } from '../services/shared/index.js';

/**
 * What a resolver may hand type-graphql for the object type `G`: every field of `G` that no
 * field resolver computes (`Resolved` names those), a nullable field free to be absent or
 * undefined. Enum fields take any string (services type most of them as `string`; graphql-js
 * refuses a value outside the enum when it serialises the answer).
 * Typing resolvers by it instead of by the class itself keeps them honest without casts: a
 * service row missing a field the type declares, or carrying a value of the wrong type, does
 * not compile.
 */
export type Source<G, Resolved extends keyof G = never> = {
  [K in Exclude<keyof G, Resolved | NullableKeys<G>>]: Plain<G[K]>;
} & { [K in Exclude<NullableKeys<G>, Resolved>]?: Plain<NonNullable<G[K]>> | null };

type NullableKeys<G> = { [K in keyof G]-?: null extends G[K] ? K : undefined extends G[K] ? K : never }[keyof G];

type Plain<T> = T extends Date
  ? T
  : T extends string
    ? string
    : T extends readonly (infer U)[]
      ? readonly Plain<U>[]
      : T extends object
        ? string extends keyof T
          ? object // a JSON scalar's record: any object
          : Source<T>
        : T;

/** A connection as a resolver returns it: the service's page, its items as the nodes' sources. */
export interface Connection<T> {
  nodes: T[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

export const connectionOf = <T>(page: Page<T>): Connection<T> => ({
  nodes: page.data,
  pageInfo: { hasNextPage: page.hasMore, endCursor: page.nextCursor },
});
