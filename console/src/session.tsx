import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { gql, setToken, whenSignedOut } from './api';
import {
  SignInDocument,
  SignOutDocument,
  ViewerDocument,
  type Environment,
  type ViewerQuery,
} from './graphql/generated';

/** Signed out after this long without a key press, click or scroll. */
export const INACTIVITY_MS = 15 * 60_000;

type Viewer = ViewerQuery['viewer'];

interface Session {
  viewer: Viewer | null;
  environment: Environment;
  setEnvironment: (environment: Environment) => void;
  can: (permission: string) => boolean;
  signIn: (email: string, password: string) => Promise<void>;
  signOut: (reason?: string) => Promise<void>;
  notice: string | null;
}

const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}

export function SessionProvider({ children }: { children: ReactNode }) {
  const [viewer, setViewer] = useState<Viewer | null>(null);
  const [environment, setEnvironment] = useState<Environment>('sandbox');
  const [notice, setNotice] = useState<string | null>(null);
  const timer = useRef<number | undefined>(undefined);

  const forget = useCallback((reason: string | null) => {
    setToken(null);
    setViewer(null);
    setNotice(reason);
  }, []);

  useEffect(() => whenSignedOut(() => forget('Your session ended. Sign in again.')), [forget]);

  const signIn = useCallback(async (email: string, password: string) => {
    const { signIn: session } = await gql(SignInDocument, { email, password });
    setToken(session.token);
    const { viewer: signedIn } = await gql(ViewerDocument);
    setEnvironment(signedIn.environments.includes('sandbox') ? 'sandbox' : (signedIn.environments[0] ?? 'sandbox'));
    setNotice(null);
    setViewer(signedIn);
  }, []);

  const signOut = useCallback(
    async (reason?: string) => {
      await gql(SignOutDocument).catch(() => undefined);
      forget(reason ?? null);
    },
    [forget],
  );

  // Inactivity sign-out: any input restarts the clock.
  useEffect(() => {
    if (!viewer) return;
    const restart = () => {
      window.clearTimeout(timer.current);
      timer.current = window.setTimeout(
        () => void signOut('You were signed out after 15 minutes without activity.'),
        INACTIVITY_MS,
      );
    };
    const events = ['keydown', 'pointerdown', 'wheel', 'touchstart'] as const;
    events.forEach((e) => window.addEventListener(e, restart, { passive: true }));
    restart();
    return () => {
      window.clearTimeout(timer.current);
      events.forEach((e) => window.removeEventListener(e, restart));
    };
  }, [viewer, signOut]);

  const value = useMemo<Session>(
    () => ({
      viewer,
      environment,
      setEnvironment,
      can: (permission) => viewer?.member.permissions.includes(permission) ?? false,
      signIn,
      signOut,
      notice,
    }),
    [viewer, environment, signIn, signOut, notice],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}
