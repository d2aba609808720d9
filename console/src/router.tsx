import { createContext, useContext, useEffect, useState, type MouseEvent, type ReactNode } from 'react';
import { Anchor, type AnchorProps } from '@mantine/core';

/** A small history router: paths carry ids only, never identity data. */
const listeners = new Set<() => void>();
export function navigate(to: string, replace = false): void {
  if (to === location.pathname + location.search) return;
  if (replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  listeners.forEach((l) => l());
}

export function usePath(): string {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const update = () => setPath(location.pathname);
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return path;
}

export const PathContext = createContext('/console');
export const useCurrentPath = () => useContext(PathContext);

/** Matches `/console/reviews/:id` style patterns; returns the params or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const p = pattern.split('/');
  const s = path.replace(/\/+$/, '').split('/');
  if (p.length !== s.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    if (p[i]!.startsWith(':')) params[p[i]!.slice(1)] = decodeURIComponent(s[i]!);
    else if (p[i] !== s[i]) return null;
  }
  return params;
}

export function Link({
  to,
  children,
  ...rest
}: { to: string; children: ReactNode } & AnchorProps & { 'aria-current'?: 'page' | undefined }) {
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    navigate(to);
  };
  return (
    <Anchor href={to} onClick={onClick} {...rest}>
      {children}
    </Anchor>
  );
}
