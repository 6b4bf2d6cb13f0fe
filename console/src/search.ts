import { useState } from 'preact/hooks';
import { ApiError, api, type Page, query } from './api.ts';
import { rfc3339 } from './format.ts';
import { useLoad } from './hooks.ts';

type Filters = Record<string, string> & { since: string; until: string };

/**
 * A filtered, cursor-paged list of the admin API (logs, audit): the filters as typed (`draft`),
 * the ones searched, and the page. `since`/`until` are typed as UTC local times; `notFound` is
 * said instead of a 404.
 */
export function useSearch<F extends Filters, T>(form: string, path: string, empty: F, notFound?: string) {
  const [draft, setDraft] = useState(empty);
  const [filters, setFilters] = useState(empty);
  const [cursor, setCursor] = useState<string | null>(null);
  const page = useLoad(
    () =>
      api<Page<T>>(
        'GET',
        `${path}${query({ ...filters, since: rfc3339(filters.since), until: rfc3339(filters.until), cursor })}`,
      ).catch((reason: unknown) => {
        // A surface the gateway's variant does not serve (variant A has no /admin/logs).
        if (notFound !== undefined && reason instanceof ApiError && reason.status === 404)
          throw new Error(notFound);
        throw reason;
      }),
    [filters, cursor],
  );
  const field = {
    form,
    draft,
    onChange: (name: keyof F & string, value: string) => setDraft({ ...draft, [name]: value }),
  };
  const search = (next: F) => {
    setCursor(null);
    setDraft(next);
    setFilters(next);
  };
  return { draft, field, page, cursor, setCursor, search };
}
