import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ConfirmButton } from '../components/confirm-button.tsx';
import { EnableButton } from '../components/enable-button.tsx';
import { LimitCells, ResetSpendButton } from '../components/limit-cells.tsx';
import { Notice } from '../components/notice.tsx';
import { SecretOnce } from '../components/secret-once.tsx';
import { useAction, useEditor, useLoad } from '../hooks.ts';
import { loadOwners } from '../owners.ts';
import type { VirtualKey, VirtualKeyWithSecret } from '../types.ts';
import { KeyForm } from './key-form.tsx';
import { TeamsSection } from './teams.tsx';

export function KeysPage() {
  const list = useLoad(loadOwners, []);
  const { message, act, done } = useAction(list.reload);
  const editor = useEditor<VirtualKey>(done);
  const [secret, setSecret] = useState<{ key: string; name: string } | null>(null);
  const [grace, setGrace] = useState('0');
  const teams = list.data?.teams ?? [];
  const teamName = (id: string | null) =>
    id === null ? '–' : (teams.find((team) => team.id === id)?.name ?? id);

  const rotate = (key: VirtualKey) =>
    act(`Rotated ${key.id}.`, async () => {
      const rotated = await api<VirtualKeyWithSecret>('POST', `/admin/keys/${key.id}/rotate`, {
        gracePeriodSeconds: Number(grace),
      });
      setSecret({ key: rotated.key, name: rotated.name || rotated.id });
    });

  return (
    <>
      {secret && <SecretOnce secret={secret.key} keyName={secret.name} onDismiss={() => setSecret(null)} />}
      <section aria-labelledby="key-list">
        <h2 id="key-list">Virtual keys</h2>
        {list.error && <Notice kind="error">{list.error}</Notice>}
        {message && <Notice kind={message.kind}>{message.text}</Notice>}
        <div class="field inline">
          <label for="grace-period">Rotation grace period (seconds)</label>
          <input
            id="grace-period"
            type="number"
            min={0}
            max={2592000}
            value={grace}
            onInput={(event) => setGrace(event.currentTarget.value)}
          />
        </div>
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Team</th>
                <th scope="col">Scope</th>
                <th scope="col">Limits</th>
                <th scope="col">Budget</th>
                <th scope="col">Period</th>
                <th scope="col">Enabled</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.data?.keys.map((key) => {
                const subject = `${key.name || 'unnamed'} (${key.id})`;
                return (
                  <tr key={key.id}>
                    <th scope="row">
                      {key.name || 'unnamed'}
                      <span class="id">{key.id}</span>
                    </th>
                    <td>{teamName(key.teamId)}</td>
                    <td>{key.allowedModels.join(', ')}</td>
                    <LimitCells holder={key} subject={subject} />
                    <td>{key.enabled ? 'yes' : 'no'}</td>
                    <td class="actions">
                      <EnableButton
                        id={key.id}
                        enabled={key.enabled}
                        path={`/admin/keys/${key.id}`}
                        subject={subject}
                        act={act}
                      />
                      <button type="button" aria-label={`Edit ${subject}`} onClick={() => editor.edit(key)}>
                        Edit
                      </button>
                      <button type="button" aria-label={`Rotate ${subject}`} onClick={() => rotate(key)}>
                        Rotate
                      </button>
                      <ResetSpendButton
                        subject={subject}
                        onReset={() =>
                          act(`Started a new budget period for ${key.id}.`, () =>
                            api('POST', `/admin/keys/${key.id}/reset-spend`),
                          )
                        }
                      />
                      <ConfirmButton
                        label="Delete"
                        subject={subject}
                        onConfirm={() =>
                          act(`Deleted ${key.id}.`, () => api('DELETE', `/admin/keys/${key.id}`))
                        }
                      />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          {list.data?.keys.length === 0 && <p>No keys yet.</p>}
        </div>
      </section>
      <KeyForm
        key={editor.key}
        {...editor.form}
        teams={teams}
        onCreated={(created) => {
          setSecret({ key: created.key, name: created.name || created.id });
          done(`Created ${created.id}.`);
        }}
      />
      <TeamsSection teams={teams} keys={list.data?.keys ?? []} onChange={list.reload} />
    </>
  );
}
