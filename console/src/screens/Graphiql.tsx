import { GraphiQL } from 'graphiql';
import 'graphiql/style.css';
import { currentToken } from '../api';
import { PageHeader } from './shared';

/** GraphiQL against /graphql with the member's in-memory session; lazy-loaded (it is most of the app's weight). */
const fetcher = async (params: unknown) => {
  const response = await fetch('/graphql', {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json',
      Authorization: `Bearer ${currentToken() ?? ''}`,
    },
    body: JSON.stringify(params),
    credentials: 'omit',
  });
  return response.json();
};

export default function GraphiqlScreen() {
  return (
    <>
      <PageHeader title="GraphiQL" />
      <div className="graphiql-host">
        <GraphiQL
          fetcher={fetcher}
          defaultQuery={'{\n  viewer {\n    member { name permissions }\n    environments\n  }\n}\n'}
          shouldPersistHeaders={false}
          storage={memoryStorage}
        />
      </div>
    </>
  );
}

// GraphiQL keeps tabs and history in localStorage by default; queries may hold identity, so memory only.
const store = new Map<string, string>();
const memoryStorage = {
  getItem: (key: string) => store.get(key) ?? null,
  setItem: (key: string, value: string) => void store.set(key, value),
  removeItem: (key: string) => void store.delete(key),
  clear: () => store.clear(),
  get length() {
    return store.size;
  },
};
