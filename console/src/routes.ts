import { useEffect, useState } from 'preact/hooks';

/** The pages, by the URL fragment that shows them: the fragment never reaches the server. */
export const PAGES = [
  { path: 'deployments', title: 'Deployments' },
  { path: 'keys', title: 'Keys and teams' },
  { path: 'router', title: 'Router settings' },
  { path: 'extensions', title: 'Extensions' },
  { path: 'logs', title: 'Logs' },
  { path: 'usage', title: 'Usage' },
  { path: 'audit', title: 'Audit trail' },
  { path: 'health', title: 'Health' },
] as const;

export interface Route {
  page: string;
  /** What follows the page in the fragment, e.g. a request id on `#/logs/<id>`. */
  rest: string;
}

function current(): Route {
  const [page = '', ...rest] = location.hash.replace(/^#\/?/, '').split('/');
  const known = PAGES.some((candidate) => candidate.path === page);
  return { page: known ? page : 'deployments', rest: decodeURIComponent(rest.join('/')) };
}

export function useRoute(): Route {
  const [route, setRoute] = useState(current);
  useEffect(() => {
    const onChange = () => setRoute(current());
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

export function href(page: string, rest?: string): string {
  return rest === undefined ? `#/${page}` : `#/${page}/${encodeURIComponent(rest)}`;
}
