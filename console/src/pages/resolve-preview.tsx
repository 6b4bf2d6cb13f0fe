import { useEffect, useState } from 'preact/hooks';
import { type ApiError, api, asApiError } from '../api.ts';
import { count } from '../format.ts';
import type { Resolved } from '../types.ts';

/**
 * How long typing pauses before the preview asks resolve again: each ask is a POST, audited like
 * any other (docs/console.md), so not one per keystroke.
 */
const PREVIEW_DELAY_MS = 500;

/**
 * Asks `POST /admin/deployments/resolve` about a create body once typing pauses (null: nothing to
 * ask yet). The API key is never sent for a preview: resolve does not need it.
 */
export function useResolvePreview(body: Record<string, unknown> | null) {
  const [resolved, setResolved] = useState<Resolved | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const asked = body === null ? null : JSON.stringify({ ...body, apiKey: undefined });
  useEffect(() => {
    setResolved(null);
    setError(null);
    if (asked === null) return;
    let current = true;
    const timer = setTimeout(() => {
      api<Resolved>('POST', '/admin/deployments/resolve', JSON.parse(asked)).then(
        (answer) => current && setResolved(answer),
        (reason: unknown) => current && setError(asApiError(reason)),
      );
    }, PREVIEW_DELAY_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [asked]);
  return { resolved, error };
}

interface Props {
  resolved: Resolved | null;
  error: ApiError | null;
  waiting: boolean;
}

/** What the gateway would make of the form, from `POST /admin/deployments/resolve` (nothing saved). */
export function ResolvePreview({ resolved, error, waiting }: Props) {
  return (
    <section class="preview" aria-labelledby="preview-title" aria-live="polite">
      <h3 id="preview-title">Resolve preview</h3>
      {waiting && <p>Fill in the public and upstream model to see what the gateway resolves.</p>}
      {error && (
        <p class="field-error" role="alert">
          {error.param ? `${error.param}: ` : ''}
          {error.message}
        </p>
      )}
      {resolved && (
        <div class="table-wrap">
          {resolved.credentialSource && <p>Credential source: {resolved.credentialSource}</p>}
          <table>
            <caption>Operations of {resolved.publicModel}</caption>
            <thead>
              <tr>
                <th scope="col">Operation</th>
                <th scope="col">Mode</th>
                <th scope="col">Transports</th>
                <th scope="col">Context window</th>
                <th scope="col">Capabilities</th>
                <th scope="col">Price</th>
              </tr>
            </thead>
            <tbody>
              {Object.entries(resolved.operations).map(([name, operation]) => (
                <tr key={name}>
                  <th scope="row">{name}</th>
                  <td>{operation.via ? `${operation.mode} via ${operation.via}` : operation.mode}</td>
                  <td>{operation.transports.join(', ')}</td>
                  <td>{count(operation.contextWindow)}</td>
                  <td>
                    {Object.entries(operation.capabilities ?? {})
                      .filter(([, on]) => on)
                      .map(([capability]) => capability)
                      .join(', ') || '–'}
                  </td>
                  <td>{operation.priceSource}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
