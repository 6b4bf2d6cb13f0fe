import { api } from '../api.ts';
import { ConfirmButton } from '../components/confirm-button.tsx';
import { LimitCells, ResetSpendButton } from '../components/limit-cells.tsx';
import { Notice } from '../components/notice.tsx';
import { useAction, useEditor } from '../hooks.ts';
import type { Team, VirtualKey } from '../types.ts';
import { TeamForm } from './team-form.tsx';

interface Props {
  teams: Team[];
  keys: VirtualKey[];
  onChange(): void;
}

export function TeamsSection({ teams, keys, onChange }: Props) {
  const { message, act, done } = useAction(onChange);
  const editor = useEditor<Team>(done);
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
                    <button type="button" aria-label={`Edit ${subject}`} onClick={() => editor.edit(team)}>
                      Edit
                    </button>
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
      <TeamForm key={editor.key} {...editor.form} />
    </section>
  );
}
