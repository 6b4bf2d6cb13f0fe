import { useEffect, useState } from 'preact/hooks';
import { KEY_REFUSED_EVENT } from './api.ts';
import { AuditPage } from './pages/audit.tsx';
import { DeploymentsPage } from './pages/deployments.tsx';
import { ExtensionsPage } from './pages/extensions.tsx';
import { HealthPage } from './pages/health.tsx';
import { KeysPage } from './pages/keys.tsx';
import { LogsPage } from './pages/logs.tsx';
import { RouterSettingsPage } from './pages/router-settings.tsx';
import { SignIn } from './pages/sign-in.tsx';
import { UsagePage } from './pages/usage.tsx';
import { href, PAGES, type Route, useRoute } from './routes.ts';
import { forgetKey, storedKey } from './session.ts';
import { applyTheme, initialTheme, type Theme } from './theme.ts';

export function App() {
  const [signedIn, setSignedIn] = useState(() => storedKey() !== null);
  const [refused, setRefused] = useState(false);
  useEffect(() => {
    const onRefused = () => {
      setRefused(true);
      setSignedIn(false);
    };
    addEventListener(KEY_REFUSED_EVENT, onRefused);
    return () => removeEventListener(KEY_REFUSED_EVENT, onRefused);
  }, []);
  const [theme, setTheme] = useState<Theme>(initialTheme);
  useEffect(() => applyTheme(theme), [theme]);
  const route = useRoute();
  // A new page moves the focus to its content, so that a screen reader starts reading there.
  useEffect(() => {
    if (signedIn) document.getElementById('main')?.focus();
  }, [signedIn, route.page, route.rest]);
  const title = PAGES.find((page) => page.path === route.page)?.title ?? '';
  useEffect(() => {
    document.title = signedIn ? `${title} · Switchyard console` : 'Sign in · Switchyard console';
  }, [signedIn, title]);

  const themeButton = (
    <button
      type="button"
      class="ghost"
      aria-pressed={theme === 'dark'}
      onClick={() => setTheme(theme === 'dark' ? 'light' : 'dark')}
    >
      Dark theme
    </button>
  );
  if (!signedIn) {
    const signedInAgain = () => {
      setRefused(false);
      setSignedIn(true);
    };
    return <SignIn onSignedIn={signedInAgain} themeButton={themeButton} keyRefused={refused} />;
  }
  return (
    <div class="shell">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <span class="brand">Switchyard</span>
        <nav aria-label="Console pages">
          <ul>
            {PAGES.map((page) => (
              <li key={page.path}>
                <a href={href(page.path)} aria-current={page.path === route.page ? 'page' : undefined}>
                  {page.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span class="topbar-actions">
          {themeButton}
          <button
            type="button"
            onClick={() => {
              forgetKey();
              location.hash = '';
              setSignedIn(false);
            }}
          >
            Sign out
          </button>
        </span>
      </header>
      <main id="main" tabIndex={-1}>
        <h1>{title}</h1>
        <Page route={route} />
      </main>
    </div>
  );
}

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case 'keys':
      return <KeysPage />;
    case 'router':
      return <RouterSettingsPage />;
    case 'extensions':
      return <ExtensionsPage />;
    case 'logs':
      return <LogsPage requestId={route.rest} />;
    case 'usage':
      return <UsagePage />;
    case 'audit':
      return <AuditPage />;
    case 'health':
      return <HealthPage />;
    default:
      return <DeploymentsPage />;
  }
}
