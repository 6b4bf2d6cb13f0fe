import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ConfirmButton } from '../components/confirm-button.tsx';
import { describedBy, Field, fieldId } from '../components/field.tsx';
import { LimitCells, ResetSpendButton } from '../components/limit-cells.tsx';
import { EMPTY_LIMITS, LimitFields, limitBody } from '../components/limit-fields.tsx';
import { Notice } from '../components/notice.tsx';
import { useFormErrors } from '../form-errors.ts';
import { listOf } from '../format.ts';
import { useAction } from '../hooks.ts';
import type { Team, VirtualKey } from '../types.ts';

interface Props {
  teams: Team[];
  keys: VirtualKey[];
  onChange(): void;
}

export function TeamsSection({ teams, keys, onChange }: Props) {
  const { message, act, done } = useAction(onChange);
  return (
    <section aria-labelledby="team-list">
      <h2 id="team-list">Teams</h2>
      {message && <Notice kind={message.kind}>{message.text}</Notice>}
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Team</th>
              <th scope="col">Scope</th>
              <th scope="col">Limits</th>
              <th scope="col">Budget</th>
              <th scope="col">Period</th>
              <th scope="col">Keys</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {teams.map((team) => {
              const subject = `team ${team.name || 'unnamed'} (${team.id})`;
              const members = keys.filter((key) => key.teamId === team.id);
              return (
                <tr key={team.id}>
                  <th scope="row">
                    {team.name || 'unnamed'}
                    <span class="id">{team.id}</span>
                  </th>
                  <td>{team.allowedModels.join(', ')}</td>
                  <LimitCells holder={team} subject={subject} />
                  <td>
                    {members.length === 0 ? 'none' : members.map((key) => key.name || key.id).join(', ')}
                  </td>
                  <td class="actions">
                    <ResetSpendButton
                      subject={subject}
                      onReset={() =>
                        act(`Started a new budget period for ${team.id}.`, () =>
                          api('POST', `/admin/teams/${team.id}/reset-spend`),
                        )
                      }
                    />
                    <ConfirmButton
                      label="Delete"
                      subject={subject}
                      onConfirm={() =>
                        act(`Deleted ${team.id}.`, () => api('DELETE', `/admin/teams/${team.id}`))
                      }
                    />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
        {teams.length === 0 && <p>No teams yet.</p>}
      </div>
      <TeamForm onCreated={(id) => done(`Created ${id}.`)} />
    </section>
  );
}

function TeamForm({ onCreated }: { onCreated(id: string): void }) {
  const [name, setName] = useState('');
  const [models, setModels] = useState('*');
  const [limits, setLimits] = useState(EMPTY_LIMITS);
  const { errorFor, formError, submitting } = useFormErrors([
    'name',
    'allowedModels',
    'budgetCents',
    'budgetPeriod',
    'rpmLimit',
    'tpmLimit',
  ]);
  const submit = submitting(async () => {
    const team = await api<Team>('POST', '/admin/teams', {
      name: name.trim(),
      allowedModels: listOf(models),
      ...limitBody(limits),
    });
    setName('');
    setLimits(EMPTY_LIMITS);
    onCreated(team.id);
  });
  const nameId = fieldId('team', 'name');
  const modelsId = fieldId('team', 'allowedModels');
  return (
    <form class="form grid" onSubmit={submit} aria-labelledby="team-form">
      <h3 id="team-form">New team</h3>
      <Field id={nameId} label="Team name" error={errorFor('name')}>
        <input
          {...describedBy(nameId, errorFor('name'))}
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
        />
      </Field>
      <Field id={modelsId} label="Team allowed models" error={errorFor('allowedModels')}>
        <input
          {...describedBy(modelsId, errorFor('allowedModels'))}
          value={models}
          onInput={(e) => setModels(e.currentTarget.value)}
        />
      </Field>
      <LimitFields form="team" labelPrefix="Team" draft={limits} onChange={setLimits} errorFor={errorFor} />
      {formError && <Notice kind="error">{formError}</Notice>}
      <div class="buttons">
        <button type="submit" class="primary">
          Create team
        </button>
      </div>
    </form>
  );
}
