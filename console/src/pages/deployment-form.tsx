import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { describedBy, Field, fieldId, type InputType, inputType } from '../components/field.tsx';
import { FormActions } from '../components/form-actions.tsx';
import { useFormErrors } from '../form-errors.ts';
import type { Deployment } from '../types.ts';
import { ResolvePreview, useResolvePreview } from './resolve-preview.tsx';

const PROVIDERS = ['openai', 'azure', 'anthropic', 'gemini', 'vertex', 'bedrock', 'openai-compatible'];
const OWN_FIELDS = ['publicModel', 'provider', 'upstreamModel', 'apiKey', 'baseUrl', 'weight'];

interface Draft {
  publicModel: string;
  provider: string;
  upstreamModel: string;
  apiKey: string;
  baseUrl: string;
  weight: string;
}

function draftOf(deployment: Deployment | null): Draft {
  return {
    publicModel: deployment?.publicModel ?? '',
    provider: deployment?.provider ?? 'openai',
    upstreamModel: deployment?.upstreamModel ?? '',
    apiKey: '',
    baseUrl: deployment?.baseUrl ?? '',
    weight: String(deployment?.weight ?? 1),
  };
}

/** The body of create, resolve and PATCH: the API key only when typed (it is write-only). */
function bodyOf(draft: Draft, editing: Deployment | null): Record<string, unknown> {
  const body: Record<string, unknown> = {
    publicModel: draft.publicModel.trim(),
    provider: draft.provider,
    upstreamModel: draft.upstreamModel.trim(),
    baseUrl: draft.baseUrl.trim() === '' ? null : draft.baseUrl.trim(),
    weight: Number(draft.weight),
  };
  if (draft.apiKey !== '') body.apiKey = draft.apiKey;
  if (editing !== null) {
    body.pricing = editing.pricing;
    body.profile = editing.profile;
    body.providerOptions = editing.providerOptions;
  }
  return body;
}

interface Props {
  editing: Deployment | null;
  onDone(message: string): void;
  onCancel(): void;
}

export function DeploymentForm({ editing, onDone, onCancel }: Props) {
  const [draft, setDraft] = useState(() => draftOf(editing));
  const ready = draft.publicModel.trim() !== '' && draft.upstreamModel.trim() !== '';
  const preview = useResolvePreview(ready ? bodyOf(draft, editing) : null);
  const { errorFor, formError, submitting } = useFormErrors(OWN_FIELDS);
  const set = (name: keyof Draft) => (event: Event) =>
    setDraft({ ...draft, [name]: (event.currentTarget as HTMLInputElement).value });

  const submit = submitting(async () => {
    if (editing === null) {
      const created = await api<Deployment>('POST', '/admin/deployments', bodyOf(draft, null));
      setDraft(draftOf(null));
      onDone(`Created ${created.publicModel} (${created.id}).`);
    } else {
      await api('PATCH', `/admin/deployments/${editing.id}`, bodyOf(draft, editing));
      onDone(`Saved ${editing.id}.`);
    }
  });

  const text = (name: keyof Draft, label: string, type: InputType = 'text', hint?: string) => {
    const id = fieldId('dep', name);
    return (
      <Field id={id} label={label} error={errorFor(name)} hint={hint}>
        <input
          {...describedBy(id, errorFor(name), hint)}
          {...inputType(type)}
          autocomplete="off"
          value={draft[name]}
          onInput={set(name)}
        />
      </Field>
    );
  };

  const providerId = fieldId('dep', 'provider');
  return (
    <section aria-labelledby="dep-form">
      <h2 id="dep-form">
        {editing === null ? 'New deployment' : `Edit ${editing.publicModel} (${editing.id})`}
      </h2>
      <div class="split">
        <form onSubmit={submit} class="form">
          {text('publicModel', 'Public model')}
          <Field id={providerId} label="Provider" error={errorFor('provider')}>
            <select
              {...describedBy(providerId, errorFor('provider'))}
              value={draft.provider}
              onChange={set('provider')}
            >
              {PROVIDERS.map((provider) => (
                <option key={provider} value={provider}>
                  {provider}
                </option>
              ))}
            </select>
          </Field>
          {text('upstreamModel', 'Upstream model')}
          {text(
            'apiKey',
            'API key',
            'password',
            editing?.hasApiKey
              ? 'Set. Leave empty to keep it; it is never shown.'
              : 'Write-only: never shown again.',
          )}
          {text('baseUrl', 'Base URL', 'url', 'Required for azure and openai-compatible.')}
          {text('weight', 'Weight', 'number')}
          <FormActions
            error={formError}
            editing={editing !== null}
            createLabel="Create deployment"
            saveLabel="Save deployment"
            onCancel={onCancel}
          />
        </form>
        <ResolvePreview resolved={preview.resolved} error={preview.error} waiting={!ready} />
      </div>
    </section>
  );
}
