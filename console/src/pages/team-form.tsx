import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { describedBy, Field, fieldId } from '../components/field.tsx';
import { EMPTY_LIMITS, LimitFields, limitBody, limitDraftOf } from '../components/limit-fields.tsx';
import { Notice } from '../components/notice.tsx';
import { useFormErrors } from '../form-errors.ts';
import { listOf } from '../format.ts';
import type { Team } from '../types.ts';

const OWN_FIELDS = ['name', 'allowedModels', 'budgetCents', 'budgetPeriod', 'rpmLimit', 'tpmLimit'];

interface Props {
  /** The team being changed (PATCH), or null for a new one. */
  editing: Team | null;
  onDone(message: string): void;
  onCancel(): void;
}

/** A new team, or a team's name, scope, budget and limits. Its labels say "Team" to stay apart from the key form's. */
export function TeamForm({ editing, onDone, onCancel }: Props) {
  const [name, setName] = useState(editing?.name ?? '');
  const [models, setModels] = useState(editing?.allowedModels.join(', ') ?? '*');
  const [limits, setLimits] = useState(editing === null ? EMPTY_LIMITS : limitDraftOf(editing));
  const { errorFor, formError, submitting } = useFormErrors(OWN_FIELDS);
  const submit = submitting(async () => {
    const body = { name: name.trim(), allowedModels: listOf(models), ...limitBody(limits) };
    if (editing !== null) {
      await api('PATCH', `/admin/teams/${editing.id}`, body);
      onDone(`Saved ${editing.id}.`);
      return;
    }
    const team = await api<Team>('POST', '/admin/teams', body);
    setName('');
    setLimits(EMPTY_LIMITS);
    onDone(`Created ${team.id}.`);
  });
  const nameId = fieldId('team', 'name');
  const modelsId = fieldId('team', 'allowedModels');
  return (
    <form class="form grid" onSubmit={submit} aria-labelledby="team-form">
      <h3 id="team-form">
        {editing === null ? 'New team' : `Edit team ${editing.name || 'unnamed'} (${editing.id})`}
      </h3>
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
          {editing === null ? 'Create team' : 'Save team'}
        </button>
        {editing !== null && (
          <button type="button" onClick={onCancel}>
            Cancel team edit
          </button>
        )}
      </div>
    </form>
  );
}
