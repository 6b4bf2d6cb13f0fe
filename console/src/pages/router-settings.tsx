import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, asApiError } from '../api.ts';
import { describedBy, Field, fieldId } from '../components/field.tsx';
import { Notice } from '../components/notice.tsx';
import { useLoad } from '../hooks.ts';

const STRATEGIES = ['weighted', 'least-busy', 'lowest-latency'];
const FALLBACK_KINDS = ['general', 'context_window', 'content_policy'] as const;

/** The numeric fields, by their path in the API's body (so a 400's `param` lands next to one). */
const NUMBERS: { path: string; label: string }[] = [
  { path: 'cooldown.failureThreshold', label: 'Cooldown failure threshold' },
  { path: 'cooldown.windowMs', label: 'Cooldown window (ms)' },
  { path: 'cooldown.durationMs', label: 'Cooldown duration (ms)' },
  { path: 'retries.maxAttempts', label: 'Max attempts' },
  { path: 'retries.backoffMs', label: 'Retry backoff (ms)' },
  { path: 'timeouts.connectMs', label: 'Connect timeout (ms)' },
  { path: 'timeouts.firstByteMs', label: 'First byte timeout (ms)' },
  { path: 'timeouts.totalMs', label: 'Total timeout (ms)' },
  { path: 'timeouts.drainAfterClientLeftMs', label: 'Drain after client left (ms)' },
];

type Settings = Record<string, unknown> & { strategy: string; fallbacks: Record<string, unknown> };
type Draft = Record<string, string>;

function read(settings: Settings, path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>((value, part) => (value as Record<string, unknown>)?.[part], settings);
}

function draftOf(settings: Settings): Draft {
  const draft: Draft = { strategy: settings.strategy };
  for (const { path } of NUMBERS) draft[path] = String(read(settings, path));
  for (const kind of FALLBACK_KINDS)
    draft[`fallbacks.${kind}`] = JSON.stringify(settings.fallbacks[kind] ?? {}, null, 2);
  return draft;
}

/** The PUT body; a fallback map that is not JSON is reported at its field before anything is sent. */
function bodyOf(draft: Draft): { body: Settings } | { error: ApiError } {
  const body: Record<string, Record<string, unknown>> = {
    cooldown: {},
    retries: {},
    timeouts: {},
    fallbacks: {},
  };
  for (const { path } of NUMBERS) {
    const [group, name] = path.split('.');
    body[group][name] = draft[path].trim() === '' ? null : Number(draft[path]);
  }
  for (const kind of FALLBACK_KINDS) {
    try {
      body.fallbacks[kind] = JSON.parse(draft[`fallbacks.${kind}`] || '{}');
    } catch {
      return {
        error: new ApiError(
          0,
          'not valid JSON: write an object of model -> [models]',
          null,
          `fallbacks.${kind}`,
        ),
      };
    }
  }
  return { body: { ...body, strategy: draft.strategy } as unknown as Settings };
}

export function RouterSettingsPage() {
  const loaded = useLoad(() => api<Settings>('GET', '/admin/router-settings'), []);
  const [draft, setDraft] = useState<Draft | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  useEffect(() => {
    if (loaded.data) setDraft(draftOf(loaded.data));
  }, [loaded.data]);
  if (loaded.error) return <Notice kind="error">{loaded.error}</Notice>;
  if (draft === null) return <p>Loading…</p>;

  /** The field a 400 names: its own path, or the field whose path starts it (a fallback entry). */
  const errorFor = (path: string) =>
    error?.param && (error.param === path || error.param.startsWith(`${path}.`)) ? error.message : null;
  const known = error?.param
    ? [...NUMBERS.map((n) => n.path), 'strategy', ...FALLBACK_KINDS.map((k) => `fallbacks.${k}`)].some(
        (path) => error.param === path || error.param?.startsWith(`${path}.`),
      )
    : false;

  const submit = async (event: Event) => {
    event.preventDefault();
    setSaved(null);
    const built = bodyOf(draft);
    if ('error' in built) {
      setError(built.error);
      return;
    }
    try {
      const now = await api<Settings>('PUT', '/admin/router-settings', built.body);
      setError(null);
      setDraft(draftOf(now));
      setSaved('Saved: in force on every replica.');
    } catch (reason) {
      setError(asApiError(reason));
    }
  };
  const set = (path: string) => (event: Event) =>
    setDraft({ ...draft, [path]: (event.currentTarget as HTMLInputElement).value });
  const strategyId = fieldId('router', 'strategy');

  return (
    <form class="form grid" onSubmit={submit} aria-label="Router settings" noValidate>
      <Field id={strategyId} label="Strategy" error={errorFor('strategy')}>
        <select
          {...describedBy(strategyId, errorFor('strategy'))}
          value={draft.strategy}
          onChange={set('strategy')}
        >
          {STRATEGIES.map((strategy) => (
            <option key={strategy} value={strategy}>
              {strategy}
            </option>
          ))}
        </select>
      </Field>
      {NUMBERS.map(({ path, label }) => {
        const id = fieldId('router', path);
        return (
          <Field key={path} id={id} label={label} error={errorFor(path)}>
            <input
              {...describedBy(id, errorFor(path))}
              type="number"
              value={draft[path]}
              onInput={set(path)}
            />
          </Field>
        );
      })}
      {FALLBACK_KINDS.map((kind) => {
        const path = `fallbacks.${kind}`;
        const id = fieldId('router', path);
        const hint = 'JSON: { "public model": ["next model", …] }';
        return (
          <Field
            key={kind}
            id={id}
            label={`Fallbacks: ${kind.replace('_', ' ')}`}
            error={errorFor(path)}
            hint={hint}
          >
            <textarea
              {...describedBy(id, errorFor(path), hint)}
              rows={4}
              spellcheck={false}
              value={draft[path]}
              onInput={set(path)}
            />
          </Field>
        );
      })}
      {error && !known && (
        <Notice kind="error">{error.param ? `${error.param}: ${error.message}` : error.message}</Notice>
      )}
      {saved && <Notice kind="ok">{saved}</Notice>}
      <div class="buttons">
        <button type="submit" class="primary">
          Save router settings
        </button>
      </div>
    </form>
  );
}
