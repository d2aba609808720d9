import { useCallback, useEffect, useRef, useState } from 'react';
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
import { gql, GraphqlError } from './api';

export interface QueryState<T> {
  data: T | null;
  error: GraphqlError | null;
  loading: boolean;
  reload: () => Promise<void>;
}

/** Runs a query when its variables change (compared as JSON); `poll` re-runs it every so many ms. */
export function useQuery<Result, Variables>(
  document: DocumentTypeDecoration<Result, Variables>,
  variables: Variables,
  options: { skip?: boolean; poll?: number } = {},
): QueryState<Result> {
  const [data, setData] = useState<Result | null>(null);
  const [error, setError] = useState<GraphqlError | null>(null);
  const [loading, setLoading] = useState(!options.skip);
  const key = JSON.stringify(variables ?? {});
  const generation = useRef(0);
  const run = useCallback(async () => {
    if (options.skip) return;
    const mine = ++generation.current;
    setLoading(true);
    try {
      const result = await gql(document, JSON.parse(key) as Variables);
      if (mine === generation.current) {
        setData(result);
        setError(null);
      }
    } catch (caught) {
      if (mine === generation.current)
        setError(caught instanceof GraphqlError ? caught : new GraphqlError(String(caught), undefined));
    } finally {
      if (mine === generation.current) setLoading(false);
    }
  }, [document, key, options.skip]);
  useEffect(() => {
    void run();
    if (!options.poll) return;
    const id = window.setInterval(() => void run(), options.poll);
    return () => window.clearInterval(id);
  }, [run, options.poll]);
  return { data, error, loading, reload: run };
}

/** A one-second clock for countdowns. */
export function useNow(intervalMs = 1000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const id = window.setInterval(() => setNow(Date.now()), intervalMs);
    return () => window.clearInterval(id);
  }, [intervalMs]);
  return now;
}

/** Saves text as a file through a blob URL (the CSV exports). */
export function download(filename: string, text: string, type = 'text/csv'): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 1000);
}
