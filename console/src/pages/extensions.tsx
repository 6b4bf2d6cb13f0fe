import { api, type Page } from '../api.ts';
import { ConfirmButton } from '../components/confirm-button.tsx';
import { EnableButton } from '../components/enable-button.tsx';
import { Notice } from '../components/notice.tsx';
import { time } from '../format.ts';
import { useAction, useEditor, useLoad } from '../hooks.ts';
import type { Extension } from '../types.ts';
import { ExtensionEditor } from './extension-editor.tsx';

function failuresInARow(count: number): string {
  return `${count} failure${count === 1 ? '' : 's'} in a row`;
}

export function ExtensionsPage() {
  const list = useLoad(() => api<Page<Extension>>('GET', '/admin/extensions?limit=200'), []);
  const { message, act, done } = useAction(list.reload);
  const editor = useEditor<Extension>(done);
  return (
    <>
      <section aria-labelledby="ext-list">
        <h2 id="ext-list">Extensions, in the order they run</h2>
        {list.error && <Notice kind="error">{list.error}</Notice>}
        {message && <Notice kind={message.kind}>{message.text}</Notice>}
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Extension</th>
                <th scope="col">State</th>
                <th scope="col">Hooks</th>
                <th scope="col">Critical</th>
                <th scope="col">Enabled</th>
                <th scope="col">Last failure</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.data?.data.map((extension) => (
                <tr key={extension.id}>
                  <th scope="row">
                    {extension.id}
                    <span class="id">
                      {extension.origin === 'directory' ? 'from EXTENSIONS_DIR' : extension.description}
                    </span>
                  </th>
                  <td>
                    <span class={`badge state-${extension.state}`}>{extension.state}</span>
                    {extension.consecutiveFailures > 0 && (
                      <span class="id">{failuresInARow(extension.consecutiveFailures)}</span>
                    )}
                  </td>
                  <td>{extension.hooks.join(', ')}</td>
                  <td>{extension.critical ? 'yes' : 'no'}</td>
                  <td>{extension.enabled ? 'yes' : 'no'}</td>
                  <td>
                    {extension.lastFailure
                      ? `${extension.lastFailure.reason} (${time(extension.lastFailure.at)})`
                      : '–'}
                  </td>
                  <td class="actions">
                    <button
                      type="button"
                      aria-label={`Reset ${extension.id}`}
                      onClick={() =>
                        act(`Reset ${extension.id}: active again.`, () =>
                          api('POST', `/admin/extensions/${extension.id}/reset`),
                        )
                      }
                    >
                      Reset
                    </button>
                    {extension.origin === 'database' && (
                      <>
                        <EnableButton
                          id={extension.id}
                          enabled={extension.enabled}
                          path={`/admin/extensions/${extension.id}`}
                          subject={extension.id}
                          act={act}
                        />
                        <button
                          type="button"
                          aria-label={`Edit source of ${extension.id}`}
                          onClick={() => editor.edit(extension)}
                        >
                          Edit source
                        </button>
                        <ConfirmButton
                          label="Delete"
                          subject={extension.id}
                          onConfirm={() =>
                            act(`Deleted ${extension.id}.`, () =>
                              api('DELETE', `/admin/extensions/${extension.id}`),
                            )
                          }
                        />
                      </>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {list.data?.data.length === 0 && <p>No extensions.</p>}
        </div>
      </section>
      <ExtensionEditor key={editor.key} {...editor.form} />
    </>
  );
}
