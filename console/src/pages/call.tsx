import { useState } from 'preact/hooks';
import { ApiError, api, messageOf, type Page, query } from '../api.ts';
import { Notice } from '../components/notice.tsx';
import { count, dollars, millis, time } from '../format.ts';
import { useLoad } from '../hooks.ts';
import { href } from '../routes.ts';
import type { Operation } from '../types.ts';

/** One call (`#/logs/<request id>`): its summary, extension runs, attempts and, on request, its payload. */
export function CallPage({ requestId }: { requestId: string }) {
  const page = useLoad(() => api<Page<Operation>>('GET', `/admin/logs${query({ requestId })}`), [requestId]);
  return (
    <>
      <p>
        <a href={href('logs')}>Back to the logs</a>
      </p>
      <h2>Call {requestId}</h2>
      {page.error && <Notice kind="error">{page.error}</Notice>}
      {page.data?.data.length === 0 && (
        <Notice kind="info">No call has this request id (or it is past retention).</Notice>
      )}
      {page.data?.data.map((operation) => (
        <OperationView key={operation.id} operation={operation} />
      ))}
      {page.data && page.data.data.length > 0 && <PayloadView requestId={requestId} />}
    </>
  );
}

function OperationView({ operation }: { operation: Operation }) {
  const facts: [string, string][] = [
    ['Operation', `${operation.operation}${operation.stream ? ' (stream)' : ''}`],
    ['Status', `${operation.status} ${operation.httpStatus ?? ''}`],
    ['Error', operation.errorCode ? `${operation.errorCode} (${operation.errorClass ?? 'no class'})` : '–'],
    ['Model', operation.publicModel],
    ['Key', operation.keyId ?? 'master key'],
    ['Deployment', operation.deploymentId ?? '–'],
    ['Started', time(operation.startedAt)],
    ['Latency', millis(operation.latencyMs)],
    ['Input tokens', count(operation.inputTokens)],
    ['Output tokens', count(operation.outputTokens)],
    ['Cached input tokens', count(operation.cachedInputTokens)],
    ['Cost', dollars(operation.costCents)],
    ['Cache hit', operation.cacheHit ? 'yes' : 'no'],
    ['Tags', operation.tags.join(', ') || '–'],
  ];
  return (
    <section aria-label={`Operation ${operation.id}`}>
      <dl class="facts">
        {facts.map(([term, value]) => (
          <div key={term}>
            <dt>{term}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      {operation.prompt && (
        <>
          <h3>Prompt</h3>
          <pre>{operation.prompt}</pre>
        </>
      )}
      {operation.extensions.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption>Extension hooks</caption>
            <thead>
              <tr>
                <th scope="col">Extension</th>
                <th scope="col">Hook</th>
                <th scope="col">Outcome</th>
                <th scope="col">Duration</th>
                <th scope="col">Failure</th>
              </tr>
            </thead>
            <tbody>
              {operation.extensions.map((run) => (
                <tr key={`${run.extensionId}-${run.hook}`}>
                  <th scope="row">{run.extensionId}</th>
                  <td>{run.hook}</td>
                  <td>{run.outcome}</td>
                  <td>{millis(run.durationMs)}</td>
                  <td>{run.failure ?? '–'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div class="table-wrap">
        <table>
          <caption>Upstream attempts</caption>
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Deployment</th>
              <th scope="col">Provider</th>
              <th scope="col">Upstream model</th>
              <th scope="col">Outcome</th>
              <th scope="col">First byte</th>
              <th scope="col">Latency</th>
              <th scope="col">HTTP</th>
              <th scope="col">Error class</th>
            </tr>
          </thead>
          <tbody>
            {operation.attempts.map((attempt) => (
              <tr key={attempt.index}>
                <th scope="row">{attempt.index}</th>
                <td>{attempt.deploymentId}</td>
                <td>{attempt.provider}</td>
                <td>{attempt.upstreamModel}</td>
                <td>{attempt.outcome}</td>
                <td>{millis(attempt.firstByteMs)}</td>
                <td>{millis(attempt.latencyMs)}</td>
                <td>{attempt.httpStatus ?? '–'}</td>
                <td>{attempt.errorClass ?? '–'}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {operation.attempts.length === 0 && <p>No upstream attempt (answered by the gateway itself).</p>}
      </div>
      {operation.attempts
        .filter((attempt) => attempt.errorDetail)
        .map((attempt) => (
          <details key={attempt.index}>
            <summary>Provider detail of attempt {attempt.index}</summary>
            <pre>{JSON.stringify(attempt.errorDetail, null, 2)}</pre>
          </details>
        ))}
    </section>
  );
}

/** The payload sample: the API audits every read, so it asks why first and sends nothing without it. */
function PayloadView({ requestId }: { requestId: string }) {
  const [reason, setReason] = useState('');
  const [payload, setPayload] = useState<unknown>(null);
  const [error, setError] = useState<string | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      setPayload(
        await api(
          'GET',
          `/admin/logs/${encodeURIComponent(requestId)}/payload${query({ reason: reason.trim() })}`,
        ),
      );
    } catch (caught) {
      setPayload(null);
      setError(
        caught instanceof ApiError && caught.status === 404
          ? 'No payload sample was kept for this call.'
          : messageOf(caught),
      );
    }
  };
  return (
    <section aria-labelledby="payload-title">
      <h3 id="payload-title">Payload</h3>
      <form class="form" onSubmit={submit}>
        <div class="field">
          <label for="payload-reason">Reason for viewing the payload</label>
          <input
            id="payload-reason"
            required
            maxLength={500}
            aria-describedby="payload-hint"
            value={reason}
            onInput={(e) => setReason(e.currentTarget.value)}
          />
          <p class="hint" id="payload-hint">
            Written to the audit trail with your address before anything is decrypted.
          </p>
        </div>
        <div class="buttons">
          <button type="submit">Show payload</button>
        </div>
      </form>
      {error && <Notice kind="error">{error}</Notice>}
      {payload !== null && <pre>{JSON.stringify(payload, null, 2)}</pre>}
    </section>
  );
}
