import { GraphiQL } from 'graphiql';
import { useEffect, useRef } from 'react';
import 'graphiql/style.css';
import './graphiql-a11y.css';
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

/** CodeMirror's hidden input areas carry no label: name each after the editor it belongs to; panes scroll by keyboard. */
function labelEditors(host: HTMLElement) {
  const names: [string, string][] = [
    ['.graphiql-query-editor', 'Query editor'],
    ['.graphiql-editor-tool', 'Variables and headers editor'],
    ['.graphiql-response', 'Response'],
  ];
  for (const textarea of host.querySelectorAll('textarea:not([aria-label])')) {
    const name = names.find(([selector]) => textarea.closest(selector))?.[1] ?? 'Editor';
    textarea.setAttribute('aria-label', name);
  }
  // A scrolling editor pane must be reachable by keyboard to scroll it (on a phone it scrolls).
  for (const pane of host.querySelectorAll('.CodeMirror-scroll:not([tabindex])')) pane.setAttribute('tabindex', '0');
}

export default function GraphiqlScreen() {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = host.current;
    if (!element) return;
    labelEditors(element);
    const observer = new MutationObserver(() => labelEditors(element));
    observer.observe(element, { childList: true, subtree: true });
    return () => observer.disconnect();
  }, []);
  return (
    <>
      <PageHeader title="GraphiQL" />
      <div className="graphiql-host" ref={host}>
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
