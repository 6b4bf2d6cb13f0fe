import { useCallback, useEffect, useState } from 'preact/hooks';
import { messageOf } from './api.ts';

export interface Loaded<T> {
  data: T | undefined;
  error: string | null;
  loading: boolean;
  reload(): void;
}

/** Runs `load` when a dependency changes (and on `reload`), keeping the last answer and error. */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setLoading(true);
    load().then(
      (value) => {
        if (!current) return;
        setData(value);
        setError(null);
        setLoading(false);
      },
      (reason: unknown) => {
        if (!current) return;
        setError(messageOf(reason));
        setLoading(false);
      },
    );
    return () => {
      current = false;
    };
  }, [...deps, round]);
  const reload = useCallback(() => setRound((n) => n + 1), []);
  return { data, error, loading, reload };
}

export interface ActionMessage {
  kind: 'ok' | 'error';
  text: string;
}

/**
 * A list's row actions: `act` runs one, then reports `text` and reloads the list, or reports the
 * API's error; `message` is what the last one said.
 */
export function useAction(reload: () => void) {
  const [message, setMessage] = useState<ActionMessage | null>(null);
  const act = async (text: string, run: () => Promise<unknown>) => {
    try {
      await run();
      setMessage({ kind: 'ok', text });
      reload();
    } catch (reason) {
      setMessage({ kind: 'error', text: messageOf(reason) });
    }
  };
  /** Reports what a form below the list did, and reloads the list. */
  const done = (text: string) => {
    setMessage({ kind: 'ok', text });
    reload();
  };
  return { message, act, done };
}

/**
 * A list whose rows open in the form below it: `edit(row)` opens one, `form` is the form's props
 * (`onDone` closes it and reports through `done`), `key` the form's key, so that it starts afresh
 * for each row: given apart, as a key spread with the props is not the element's key.
 */
export function useEditor<T extends { id: string }>(done: (text: string) => void) {
  const [editing, setEditing] = useState<T | null>(null);
  const form = {
    editing,
    onDone: (text: string) => {
      setEditing(null);
      done(text);
    },
    onCancel: () => setEditing(null),
  };
  return { edit: setEditing, key: editing?.id ?? 'new', form };
}
