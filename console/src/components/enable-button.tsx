import { api } from '../api.ts';

interface EnableButtonProps {
  /** The row's id and its state. */
  id: string;
  enabled: boolean;
  /** The admin path of the row (`/admin/keys/key_…`), PATCHed with the opposite `enabled`. */
  path: string;
  /** How the row is named to a screen reader (`gpt (dep_…)`). */
  subject: string;
  /** The list's useAction().act: reports the change and reloads the list. */
  act(text: string, run: () => Promise<unknown>): void;
}

/** Disables an enabled row, or enables a disabled one. */
export function EnableButton({ id, enabled, path, subject, act }: EnableButtonProps) {
  const verb = enabled ? 'Disable' : 'Enable';
  return (
    <button
      type="button"
      aria-label={`${verb} ${subject}`}
      onClick={() =>
        act(`${enabled ? 'Disabled' : 'Enabled'} ${id}.`, () => api('PATCH', path, { enabled: !enabled }))
      }
    >
      {verb}
    </button>
  );
}
