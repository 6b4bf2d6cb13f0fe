import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api, messageOf } from '../api.ts';
import { Notice } from '../components/notice.tsx';
import { storeKey } from '../session.ts';

interface SignInProps {
  onSignedIn(): void;
  themeButton: ComponentChildren;
  /** The kept key was refused by the gateway while signed in. */
  keyRefused: boolean;
}

/**
 * Checks the master key against the admin API before keeping it: a wrong key shows the API's
 * error and nothing else is loaded.
 */
export function SignIn({ onSignedIn, themeButton, keyRefused }: SignInProps) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api('GET', '/admin/router-settings', undefined, key);
      storeKey(key);
      onSignedIn();
    } catch (reason) {
      setError(messageOf(reason));
      setBusy(false);
    }
  };

  return (
    <main class="sign-in" id="main">
      <div class="card">
        <h1>Switchyard console</h1>
        <p>
          Sign in with the gateway's master key. It is kept in this tab only, until you sign out or close it.
        </p>
        {keyRefused && error === null && (
          <Notice kind="info">The gateway refused the master key this tab kept: sign in again.</Notice>
        )}
        <form onSubmit={submit}>
          <div class="field">
            <label for="master-key">Master key</label>
            <input
              id="master-key"
              type="password"
              autocomplete="off"
              spellcheck={false}
              required
              value={key}
              onInput={(event) => setKey(event.currentTarget.value)}
            />
          </div>
          <button type="submit" class="primary" disabled={busy}>
            Sign in
          </button>
        </form>
        {error && <Notice kind="error">{error}</Notice>}
        <div class="sign-in-footer">{themeButton}</div>
      </div>
    </main>
  );
}
