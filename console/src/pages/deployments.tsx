import { api, type Page } from '../api.ts';
import { ConfirmButton } from '../components/confirm-button.tsx';
import { EnableButton } from '../components/enable-button.tsx';
import { Notice } from '../components/notice.tsx';
import { time } from '../format.ts';
import { useAction, useEditor, useLoad } from '../hooks.ts';
import type { Deployment, Resolved } from '../types.ts';
import { DeploymentForm } from './deployment-form.tsx';

/**
 * Each deployment's price source as resolve reports it (the same for each of its operations),
 * kept per deployment version for the life of the page: resolve is a POST, so every call is a row
 * of the audit trail, and the list is loaded after every action.
 */
const priceSourceCache = new Map<string, Promise<string>>();

function priceSource(deployment: Deployment): Promise<string> {
  if (deployment.pricing !== null) return Promise.resolve('override');
  const version = `${deployment.id}@${deployment.updatedAt}`;
  let source = priceSourceCache.get(version);
  if (source === undefined) {
    const body = {
      publicModel: deployment.publicModel,
      provider: deployment.provider,
      upstreamModel: deployment.upstreamModel,
      baseUrl: deployment.baseUrl,
      profile: deployment.profile,
      providerOptions: deployment.providerOptions,
    };
    source = api<Resolved>('POST', '/admin/deployments/resolve', body).then(
      (resolved) => Object.values(resolved.operations)[0]?.priceSource ?? 'unknown',
      () => 'unknown',
    );
    priceSourceCache.set(version, source);
  }
  return source;
}

async function priceSources(deployments: Deployment[]): Promise<Map<string, string>> {
  const sources = await Promise.all(deployments.map(priceSource));
  return new Map(deployments.map((deployment, index) => [deployment.id, sources[index]]));
}

interface Cooldown {
  deploymentId: string;
  remainingMs: number;
  until: string;
}

/** In its pool, or out of it until when (as the replica that answered sees it). */
function cooldownText(cooldown: Cooldown | undefined): string {
  if (cooldown === undefined) return 'in pool';
  return `cooling, ${Math.ceil(cooldown.remainingMs / 1000)} s left (until ${time(cooldown.until)})`;
}

export function DeploymentsPage() {
  const list = useLoad(async () => {
    const [page, cooling] = await Promise.all([
      api<Page<Deployment>>('GET', '/admin/deployments?limit=200'),
      api<{ data: Cooldown[] }>('GET', '/admin/deployments/cooldowns'),
    ]);
    const cooldowns = new Map(cooling.data.map((entry) => [entry.deploymentId, entry]));
    return { deployments: page.data, prices: await priceSources(page.data), cooldowns };
  }, []);
  const { message, act, done } = useAction(list.reload);
  const editor = useEditor<Deployment>(done);

  return (
    <>
      <section aria-labelledby="dep-list">
        <h2 id="dep-list">All deployments</h2>
        {list.error && <Notice kind="error">{list.error}</Notice>}
        {message && <Notice kind={message.kind}>{message.text}</Notice>}
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Public model</th>
                <th scope="col">Provider</th>
                <th scope="col">Upstream model</th>
                <th scope="col">Enabled</th>
                <th scope="col">Weight</th>
                <th scope="col">Cooldown</th>
                <th scope="col">API key</th>
                <th scope="col">Price source</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.data?.deployments.map((deployment) => (
                <tr key={deployment.id}>
                  <th scope="row">
                    {deployment.publicModel}
                    <span class="id">{deployment.id}</span>
                  </th>
                  <td>{deployment.provider}</td>
                  <td>{deployment.upstreamModel}</td>
                  <td>{deployment.enabled ? 'yes' : 'no'}</td>
                  <td>{deployment.weight}</td>
                  <td>{cooldownText(list.data?.cooldowns.get(deployment.id))}</td>
                  <td>{deployment.hasApiKey ? 'set' : 'none'}</td>
                  <td>{list.data?.prices.get(deployment.id)}</td>
                  <td class="actions">
                    <button
                      type="button"
                      aria-label={`Edit ${deployment.publicModel} (${deployment.id})`}
                      onClick={() => editor.edit(deployment)}
                    >
                      Edit
                    </button>
                    <EnableButton
                      id={deployment.id}
                      enabled={deployment.enabled}
                      path={`/admin/deployments/${deployment.id}`}
                      subject={`${deployment.publicModel} (${deployment.id})`}
                      act={act}
                    />
                    <ConfirmButton
                      label="Delete"
                      subject={`${deployment.publicModel} (${deployment.id})`}
                      onConfirm={() =>
                        act(`Deleted ${deployment.id}.`, () =>
                          api('DELETE', `/admin/deployments/${deployment.id}`),
                        )
                      }
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {list.data?.deployments.length === 0 && <p>No deployments yet: create one below.</p>}
        </div>
      </section>
      <DeploymentForm key={editor.key} {...editor.form} />
    </>
  );
}
