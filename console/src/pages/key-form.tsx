import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { describedBy, Field, fieldId } from '../components/field.tsx';
import { FormActions } from '../components/form-actions.tsx';
import { EMPTY_LIMITS, LimitFields, limitBody, limitDraftOf } from '../components/limit-fields.tsx';
import { useFormErrors } from '../form-errors.ts';
import { listOf } from '../format.ts';
import type { Team, VirtualKey, VirtualKeyWithSecret } from '../types.ts';

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

interface Props {
  teams: Team[];
  /** The key being changed (PATCH), or null for a new one. */
  editing: VirtualKey | null;
  onCreated(key: VirtualKeyWithSecret): void;
  onDone(message: string): void;
  onCancel(): void;
}

export function KeyForm({ teams, editing, onCreated, onDone, onCancel }: Props) {
  const [name, setName] = useState(editing?.name ?? '');
  const [models, setModels] = useState(editing?.allowedModels.join(', ') ?? '*');
  const [teamId, setTeamId] = useState(editing?.teamId ?? '');
  const [tags, setTags] = useState(editing?.tags.join(', ') ?? '');
  const [limits, setLimits] = useState(editing === null ? EMPTY_LIMITS : limitDraftOf(editing));
  const { errorFor, formError, submitting } = useFormErrors(OWN_FIELDS);

  const submit = submitting(async () => {
    const body = {
      name: name.trim(),
      allowedModels: listOf(models),
      teamId: teamId === '' ? null : teamId,
      tags: listOf(tags),
      ...limitBody(limits),
    };
    if (editing !== null) {
      await api('PATCH', `/admin/keys/${editing.id}`, body);
      onDone(`Saved ${editing.id}.`);
      return;
    }
    const created = await api<VirtualKeyWithSecret>('POST', '/admin/keys', body);
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
      <h2 id="key-form">
        {editing === null ? 'New key' : `Edit ${editing.name || 'unnamed'} (${editing.id})`}
      </h2>
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
        <FormActions
          error={formError}
          editing={editing !== null}
          createLabel="Create key"
          saveLabel="Save key"
          onCancel={onCancel}
        />
      </form>
    </section>
  );
}
