import { FilterInput, FilterSelect } from '../components/filter-fields.tsx';
import { Notice } from '../components/notice.tsx';
import { Pager } from '../components/pager.tsx';
import { count, dollars, millis, time } from '../format.ts';
import { useLoad } from '../hooks.ts';
import { loadOwners } from '../owners.ts';
import { href } from '../routes.ts';
import { useSearch } from '../search.ts';
import type { Operation } from '../types.ts';
import { CallPage } from './call.tsx';

const STATUSES = ['in_progress', 'success', 'failure', 'cancelled', 'abandoned'];

type Filters = {
  requestId: string;
  keyId: string;
  teamId: string;
  publicModel: string;
  status: string;
  tag: string;
  since: string;
  until: string;
};

const NO_FILTERS: Filters = {
  requestId: '',
  keyId: '',
  teamId: '',
  publicModel: '',
  status: '',
  tag: '',
  since: '',
  until: '',
};

export function LogsPage({ requestId }: { requestId: string }) {
  if (requestId !== '') return <CallPage requestId={requestId} />;
  return <LogSearch />;
}

function LogSearch() {
  const owners = useLoad(loadOwners, []);
  const { draft, field, page, cursor, setCursor, search } = useSearch<Filters, Operation>(
    'logs',
    '/admin/logs',
    NO_FILTERS,
    'Request records are kept in variant B only (this gateway runs variant A).',
  );
  return (
    <>
      <form
        class="form grid filters"
        aria-label="Search logs"
        onSubmit={(event) => {
          event.preventDefault();
          search({ ...draft, requestId: draft.requestId.trim() });
        }}
      >
        <FilterInput {...field} name="requestId" label="Request ID" />
        <FilterSelect
          {...field}
          name="keyId"
          label="Key"
          options={(owners.data?.keys ?? []).map((key) => ({ value: key.id, text: key.name || key.id }))}
        />
        <FilterSelect
          {...field}
          name="teamId"
          label="Team"
          options={(owners.data?.teams ?? []).map((team) => ({ value: team.id, text: team.name || team.id }))}
        />
        <FilterInput {...field} name="publicModel" label="Model" />
        <FilterSelect
          {...field}
          name="status"
          label="Status"
          options={STATUSES.map((status) => ({ value: status, text: status }))}
        />
        <FilterInput {...field} name="tag" label="Tag" />
        <FilterInput {...field} name="since" label="From (UTC)" type="datetime-local" />
        <FilterInput {...field} name="until" label="To (UTC)" type="datetime-local" />
        <div class="buttons">
          <button type="submit" class="primary">
            Search
          </button>
          <button type="button" onClick={() => search(NO_FILTERS)}>
            Clear
          </button>
        </div>
      </form>
      {page.error && <Notice kind="error">{page.error}</Notice>}
      <div class="table-wrap">
        <table aria-busy={page.loading}>
          <caption>Calls, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Started</th>
              <th scope="col">Request ID</th>
              <th scope="col">Model</th>
              <th scope="col">Key</th>
              <th scope="col">Status</th>
              <th scope="col">Latency</th>
              <th scope="col">Tokens in/out</th>
              <th scope="col">Cost</th>
            </tr>
          </thead>
          <tbody>
            {page.data?.data.map((operation) => (
              <tr key={operation.id}>
                <td>{time(operation.startedAt)}</td>
                <th scope="row">
                  <a href={href('logs', operation.requestId)}>{operation.requestId}</a>
                </th>
                <td>{operation.publicModel}</td>
                <td>{operation.keyId ?? 'master key'}</td>
                <td>
                  <span class={`badge status-${operation.status}`}>{operation.status}</span>{' '}
                  {operation.httpStatus ?? ''}
                  {operation.errorCode && <span class="id">{operation.errorCode}</span>}
                </td>
                <td>{millis(operation.latencyMs)}</td>
                <td>
                  {count(operation.inputTokens)} / {count(operation.outputTokens)}
                </td>
                <td>{dollars(operation.costCents)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {page.data?.data.length === 0 && <p>No calls match.</p>}
      </div>
      <Pager cursor={cursor} nextCursor={page.data?.nextCursor} onPage={setCursor} />
    </>
  );
}
