import { lazy, Suspense, useEffect, type ReactNode } from 'react';
import {
  AppShell,
  Burger,
  Button,
  Group,
  Loader,
  NavLink,
  SegmentedControl,
  Text,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { match, navigate, PathContext, usePath } from './router';
import { useSession } from './session';
import { SignInScreen } from './screens/SignIn';
import { ReviewsScreen } from './screens/Reviews';
import { CaseScreen } from './screens/Case';
import { VerificationsScreen } from './screens/Verifications';
import { VerificationScreen } from './screens/Verification';
import { AuditScreen } from './screens/Audit';
import { TeamScreen } from './screens/Team';
import { LogsScreen } from './screens/Logs';
import { SettingsScreen } from './screens/Settings';
import type { Environment } from './graphql/generated';

// Charts and GraphiQL are large: loaded when first shown.
const ReportingScreen = lazy(() => import('./screens/Reporting'));
const GraphiqlScreen = lazy(() => import('./screens/Graphiql'));

interface Section {
  label: string;
  path: string;
  permission?: string;
}

const SECTIONS: Section[] = [
  { label: 'Reviews', path: '/console/reviews' },
  { label: 'Verifications', path: '/console/verifications' },
  { label: 'Reporting', path: '/console/reporting' },
  { label: 'Logs', path: '/console/logs', permission: 'logs.read' },
  { label: 'Team', path: '/console/team' },
  { label: 'Settings', path: '/console/settings' },
  { label: 'Audit', path: '/console/audit' },
  { label: 'GraphiQL', path: '/graphql' },
];

function route(path: string): { title: string; element: ReactNode } {
  let params: Record<string, string> | null;
  if ((params = match('/console/reviews/:id', path)))
    return { title: 'Case', element: <CaseScreen reviewId={params.id!} /> };
  if ((params = match('/console/verifications/:id', path)))
    return { title: 'Verification', element: <VerificationScreen id={params.id!} /> };
  if (match('/console/verifications', path)) return { title: 'Verifications', element: <VerificationsScreen /> };
  if (match('/console/reporting', path)) return { title: 'Reporting', element: <ReportingScreen /> };
  if (match('/console/logs', path)) return { title: 'Logs', element: <LogsScreen /> };
  if (match('/console/team', path)) return { title: 'Team', element: <TeamScreen /> };
  if (match('/console/settings', path)) return { title: 'Settings', element: <SettingsScreen /> };
  if (match('/console/audit', path)) return { title: 'Audit', element: <AuditScreen /> };
  if (match('/graphql', path)) return { title: 'GraphiQL', element: <GraphiqlScreen /> };
  return { title: 'Reviews', element: <ReviewsScreen /> };
}

export function App() {
  const path = usePath();
  const session = useSession();
  const [opened, { toggle, close }] = useDisclosure(false);
  const { title, element } = route(path);

  useEffect(() => {
    document.title = session.viewer ? `${title} · Back office` : 'Sign in · Back office';
  }, [title, session.viewer]);
  useEffect(() => close(), [path, close]);
  useEffect(() => {
    if (session.viewer && (path === '/console' || path === '/console/')) navigate('/console/reviews', true);
  }, [path, session.viewer]);

  if (!session.viewer) return <SignInScreen />;
  const { viewer } = session;
  const visible = SECTIONS.filter((s) => !s.permission || session.can(s.permission));

  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{ width: 200, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding="md"
    >
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Menu" />
            <Text fw={700} visibleFrom="xs">
              {viewer.merchant.name}
            </Text>
          </Group>
          <Group gap="sm" wrap="nowrap">
            {viewer.environments.length > 1 ? (
              <SegmentedControl
                size="xs"
                aria-label="Environment"
                value={session.environment}
                onChange={(value) => session.setEnvironment(value as Environment)}
                data={viewer.environments.map((e) => ({ value: e, label: e === 'live' ? 'Live' : 'Sandbox' }))}
                color={session.environment === 'live' ? 'red' : 'indigo'}
              />
            ) : (
              <Text size="sm">{viewer.environments[0] === 'live' ? 'Live' : 'Sandbox'}</Text>
            )}
            <Text size="sm" visibleFrom="md">
              {viewer.member.name}
            </Text>
            <Button size="xs" variant="default" onClick={() => void session.signOut()}>
              Sign out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" component="nav" aria-label="Sections">
        {visible.map((section) => {
          const active = path === section.path || path.startsWith(section.path + '/');
          return (
            <NavLink
              key={section.path}
              href={section.path}
              label={section.label}
              active={active}
              aria-current={active ? 'page' : undefined}
              onClick={(event) => {
                event.preventDefault();
                navigate(section.path);
              }}
            />
          );
        })}
      </AppShell.Navbar>
      <AppShell.Main id="main">
        <VisuallyHidden>
          <Title order={1}>{title}</Title>
        </VisuallyHidden>
        <PathContext.Provider value={path}>
          <Suspense fallback={<Loader role="status" aria-label="Loading" />}>
            {/* Keyed on the path: leaving a screen drops its state, revealed identity included. */}
            <div key={path}>{element}</div>
          </Suspense>
        </PathContext.Provider>
      </AppShell.Main>
    </AppShell>
  );
}
