import { api } from '../api.ts';
import { Notice } from '../components/notice.tsx';
import { time } from '../format.ts';
import { useLoad } from '../hooks.ts';

interface Readiness {
  status: 'ok' | 'unavailable';
  checks: Record<string, 'ok' | 'failed'>;
}

interface Status {
  variant: string;
  version: string;
  startedAt: string;
  uptimeSeconds: number;
}

/** `/health/ready` answers 503 with the same body when a dependency fails: both are a reading. */
async function readiness(): Promise<Readiness> {
  const response = await fetch('/health/ready', { cache: 'no-store' });
  return (await response.json()) as Readiness;
}

function duration(seconds: number): string {
  const days = Math.floor(seconds / 86_400);
  const hours = Math.floor((seconds % 86_400) / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  return days > 0
    ? `${days} d ${hours} h`
    : hours > 0
      ? `${hours} h ${minutes} min`
      : `${minutes} min ${seconds % 60} s`;
}

export function HealthPage() {
  const ready = useLoad(readiness, []);
  const status = useLoad(() => api<Status>('GET', '/admin/status'), []);
  return (
    <>
      <div class="buttons">
        <button
          type="button"
          onClick={() => {
            ready.reload();
            status.reload();
          }}
        >
          Refresh
        </button>
      </div>
      {ready.error && <Notice kind="error">{ready.error}</Notice>}
      {status.error && <Notice kind="error">{status.error}</Notice>}
      {ready.data && (
        <section aria-labelledby="readiness">
          <h2 id="readiness">
            Readiness: <span class={`badge ready-${ready.data.status}`}>{ready.data.status}</span>
          </h2>
          <dl class="totals">
            {Object.entries(ready.data.checks).map(([dependency, state]) => (
              <div key={dependency}>
                <dt>{dependency}</dt>
                <dd>
                  <span class={`badge ready-${state}`}>{state}</span>
                </dd>
              </div>
            ))}
          </dl>
        </section>
      )}
      {status.data && (
        <section aria-labelledby="process">
          <h2 id="process">This replica</h2>
          <dl class="facts">
            <div>
              <dt>Variant</dt>
              <dd>{status.data.variant.toUpperCase()}</dd>
            </div>
            <div>
              <dt>Version</dt>
              <dd>{status.data.version}</dd>
            </div>
            <div>
              <dt>Up for</dt>
              <dd>{duration(Math.round(status.data.uptimeSeconds))}</dd>
            </div>
            <div>
              <dt>Started</dt>
              <dd>{time(status.data.startedAt)}</dd>
            </div>
          </dl>
        </section>
      )}
    </>
  );
}
