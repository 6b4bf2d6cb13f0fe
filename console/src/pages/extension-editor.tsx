import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { describedBy, Field, fieldId } from '../components/field.tsx';
import { FormActions } from '../components/form-actions.tsx';
import { useFormErrors } from '../form-errors.ts';
import { listOf } from '../format.ts';
import type { Extension } from '../types.ts';

const ID_HINT = 'A slug: a-z, 0-9 and -.';

const TEMPLATE = `export function beforeUpstream(call) {
  // return nothing to continue, { body } to replace it, or { reject: { status, message } }
}
`;

interface Props {
  editing: Extension | null;
  onDone(message: string): void;
  onCancel(): void;
}

/** Creates an extension or changes one's source; the API compiles it and a compile error shows at "Source". */
export function ExtensionEditor({ editing, onDone, onCancel }: Props) {
  const [id, setId] = useState('');
  const [description, setDescription] = useState(editing?.description ?? '');
  const [models, setModels] = useState((editing?.models ?? ['*']).join(', '));
  const [critical, setCritical] = useState(editing?.critical ?? false);
  const [source, setSource] = useState(editing?.source ?? TEMPLATE);
  const { errorFor, formError, submitting } = useFormErrors(['id', 'description', 'models', 'source']);

  const submit = submitting(async () => {
    const body = { description, models: listOf(models), critical, source };
    if (editing === null) {
      await api('POST', '/admin/extensions', { id: id.trim(), ...body });
      onDone(`Created ${id.trim()}.`);
    } else {
      await api('PATCH', `/admin/extensions/${editing.id}`, body);
      onDone(`Saved ${editing.id}: compiled, breaker reset.`);
    }
  });

  const ids = {
    id: fieldId('ext', 'id'),
    description: fieldId('ext', 'description'),
    models: fieldId('ext', 'models'),
    critical: fieldId('ext', 'critical'),
    source: fieldId('ext', 'source'),
  };
  return (
    <section aria-labelledby="ext-form">
      <h2 id="ext-form">{editing === null ? 'New extension' : `Source of ${editing.id}`}</h2>
      <form class="form" onSubmit={submit}>
        {editing === null && (
          <Field id={ids.id} label="Extension id" error={errorFor('id')} hint={ID_HINT}>
            <input
              {...describedBy(ids.id, errorFor('id'), ID_HINT)}
              value={id}
              onInput={(e) => setId(e.currentTarget.value)}
            />
          </Field>
        )}
        <Field id={ids.description} label="Description" error={errorFor('description')}>
          <input
            {...describedBy(ids.description, errorFor('description'))}
            value={description}
            onInput={(e) => setDescription(e.currentTarget.value)}
          />
        </Field>
        <Field id={ids.models} label="Extension models" error={errorFor('models')}>
          <input
            {...describedBy(ids.models, errorFor('models'))}
            value={models}
            onInput={(e) => setModels(e.currentTarget.value)}
          />
        </Field>
        <div class="field check">
          <input
            id={ids.critical}
            type="checkbox"
            checked={critical}
            onChange={(e) => setCritical(e.currentTarget.checked)}
          />
          <label for={ids.critical}>Critical (a tripped breaker refuses calls instead of skipping it)</label>
        </div>
        <Field id={ids.source} label="Source" error={errorFor('source')}>
          <textarea
            {...describedBy(ids.source, errorFor('source'))}
            class="code"
            rows={12}
            spellcheck={false}
            value={source}
            onInput={(e) => setSource(e.currentTarget.value)}
          />
        </Field>
        <FormActions
          error={formError}
          editing={editing !== null}
          createLabel="Create extension"
          saveLabel="Save source"
          onCancel={onCancel}
        />
      </form>
    </section>
  );
}
