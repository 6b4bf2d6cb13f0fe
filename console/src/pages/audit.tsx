import { FilterInput, FilterSelect } from '../components/filter-fields.tsx';
import { Notice } from '../components/notice.tsx';
import { Pager } from '../components/pager.tsx';
import { time } from '../format.ts';
import { useSearch } from '../search.ts';
import type { AuditRow } from '../types.ts';

type Filters = {
  kind: string;
  method: string;
  path: string;
  resourceId: string;
  status: string;
  since: string;
  until: string;
};

const NO_FILTERS: Filters = {
  kind: '',
  method: '',
  path: '',
  resourceId: '',
  status: '',
  since: '',
  until: '',
};

export function AuditPage() {
  const { draft, field, page, cursor, setCursor, search } = useSearch<Filters, AuditRow>(
    'audit',
    '/admin/audit',
    NO_FILTERS,
  );
  const choices = (values: string[]) => values.map((value) => ({ value, text: value }));
  return (
    <>
      <form
        class="form grid filters"
        aria-label="Filter the audit trail"
        onSubmit={(event) => {
          event.preventDefault();
          search(draft);
        }}
      >
        <FilterSelect
          {...field}
          name="kind"
          label="Kind"
          options={choices(['admin_mutation', 'payload_access'])}
        />
        <FilterSelect
          {...field}
          name="method"
          label="Method"
          options={choices(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'])}
        />
        <FilterInput {...field} name="path" label="Path starts with" />
        <FilterInput {...field} name="resourceId" label="Resource id" />
        <FilterInput {...field} name="status" label="HTTP status" type="number" />
        <FilterInput {...field} name="since" label="From (UTC)" type="datetime-local" />
        <FilterInput {...field} name="until" label="To (UTC)" type="datetime-local" />
        <div class="buttons">
          <button type="submit" class="primary">
            Filter
          </button>
        </div>
      </form>
      {page.error && <Notice kind="error">{page.error}</Notice>}
      <div class="table-wrap">
        <table aria-busy={page.loading}>
          <caption>Admin changes and payload reads, newest first</caption>
          <thead>
            <tr>
              <th scope="col">At</th>
              <th scope="col">Kind</th>
              <th scope="col">Method</th>
              <th scope="col">Path</th>
              <th scope="col">Resource</th>
              <th scope="col">Status</th>
              <th scope="col">Request ID</th>
              <th scope="col">From</th>
              <th scope="col">Reason</th>
            </tr>
          </thead>
          <tbody>
            {page.data?.data.map((row) => (
              <tr key={row.id}>
                <td>{time(row.at)}</td>
                <td>{row.kind}</td>
                <td>{row.method}</td>
                <th scope="row">{row.path}</th>
                <td>{row.resourceId ?? '–'}</td>
                <td>{row.status}</td>
                <td>{row.requestId}</td>
                <td>{row.sourceAddress ?? '–'}</td>
                <td>{row.reason ?? '–'}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {page.data?.data.length === 0 && <p>No rows match.</p>}
      </div>
      <Pager cursor={cursor} nextCursor={page.data?.nextCursor} onPage={setCursor} />
    </>
  );
}
