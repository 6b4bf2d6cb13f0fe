import { useEffect, useRef, useState } from 'preact/hooks';

interface ConfirmButtonProps {
  /** The button's text, e.g. "Delete". */
  label: string;
  /** What it acts on, for the accessible name: "Delete gpt-4o". */
  subject: string;
  onConfirm(): void;
}

/** A destructive action asked twice: the first press shows "Confirm" and "Cancel" in its place. */
export function ConfirmButton({ label, subject, onConfirm }: ConfirmButtonProps) {
  const [asking, setAsking] = useState(false);
  // The pressed button is replaced: keyboard focus moves to the safe choice, not to the page.
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) cancel.current?.focus();
  }, [asking]);
  if (!asking) {
    return (
      <button type="button" class="danger" aria-label={`${label} ${subject}`} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    <span class="confirm">
      <button
        type="button"
        class="danger"
        aria-label={`Confirm ${label.toLowerCase()} ${subject}`}
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        Confirm
      </button>
      <button
        type="button"
        ref={cancel}
        aria-label={`Cancel ${label.toLowerCase()} ${subject}`}
        onClick={() => setAsking(false)}
      >
        Cancel
      </button>
    </span>
  );
}
