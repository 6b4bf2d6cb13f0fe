import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { describedBy, Field, fieldId } from '../components/field.tsx';
import { EMPTY_LIMITS, LimitFields, limitBody } from '../components/limit-fields.tsx';
import { Notice } from '../components/notice.tsx';
import { useFormErrors } from '../form-errors.ts';
import { listOf } from '../format.ts';
import type { Team, VirtualKeyWithSecret } from '../types.ts';

const MODELS_HINT = 'Comma-separated public models; * for all.';
const OWN_FIELDS = [
  'name',
  'allowedModels',
  'teamId',
  'tags',
  'budgetCents',
  'budgetPeriod',
  'rpmLimit',
  'tpmLimit',
];

export function KeyForm({ teams, onCreated }: { teams: Team[]; onCreated(key: VirtualKeyWithSecret): void }) {
  const [name, setName] = useState('');
  const [models, setModels] = useState('*');
  const [teamId, setTeamId] = useState('');
  const [tags, setTags] = useState('');
  const [limits, setLimits] = useState(EMPTY_LIMITS);
  const { errorFor, formError, submitting } = useFormErrors(OWN_FIELDS);

  const submit = submitting(async () => {
    const created = await api<VirtualKeyWithSecret>('POST', '/admin/keys', {
      name: name.trim(),
      allowedModels: listOf(models),
      teamId: teamId === '' ? null : teamId,
      tags: listOf(tags),
      ...limitBody(limits),
    });
    setName('');
    setModels('*');
    setTags('');
    setLimits(EMPTY_LIMITS);
    onCreated(created);
  });

  const ids = { name: fieldId('key', 'name'), models: fieldId('key', 'allowedModels') };
  const teamField = fieldId('key', 'teamId');
  const tagField = fieldId('key', 'tags');
  return (
    <section aria-labelledby="key-form">
      <h2 id="key-form">New key</h2>
      <form class="form grid" onSubmit={submit}>
        <Field id={ids.name} label="Name" error={errorFor('name')}>
          <input
            {...describedBy(ids.name, errorFor('name'))}
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </Field>
        <Field id={ids.models} label="Allowed models" error={errorFor('allowedModels')} hint={MODELS_HINT}>
          <input
            {...describedBy(ids.models, errorFor('allowedModels'), MODELS_HINT)}
            value={models}
            onInput={(e) => setModels(e.currentTarget.value)}
          />
        </Field>
        <Field id={teamField} label="Team" error={errorFor('teamId')}>
          <select
            {...describedBy(teamField, errorFor('teamId'))}
            value={teamId}
            onChange={(e) => setTeamId(e.currentTarget.value)}
          >
            <option value="">no team</option>
            {teams.map((team) => (
              <option key={team.id} value={team.id}>
                {team.name || team.id}
              </option>
            ))}
          </select>
        </Field>
        <Field id={tagField} label="Default tags" error={errorFor('tags')}>
          <input
            {...describedBy(tagField, errorFor('tags'))}
            value={tags}
            onInput={(e) => setTags(e.currentTarget.value)}
          />
        </Field>
        <LimitFields form="key" labelPrefix="" draft={limits} onChange={setLimits} errorFor={errorFor} />
        {formError && <Notice kind="error">{formError}</Notice>}
        <div class="buttons">
          <button type="submit" class="primary">
            Create key
          </button>
        </div>
      </form>
    </section>
  );
}
