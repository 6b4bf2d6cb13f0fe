import { useEffect, useRef, useState } from 'preact/hooks';

/**
 * A key's secret as the API answered it once: shown in a read-only field named "New key secret"
 * with a copy button, kept only in this component's state, gone when dismissed.
 */
export function SecretOnce({
  secret,
  keyName,
  onDismiss,
}: {
  secret: string;
  keyName: string;
  onDismiss(): void;
}) {
  const [copied, setCopied] = useState<string | null>(null);
  // Focus goes to the secret so that a screen reader reads it out and the keyboard can copy it.
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => field.current?.focus(), []);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied('Copied to the clipboard.');
    } catch {
      setCopied('The browser refused the clipboard: select the field and copy it.');
    }
  };
  return (
    <section class="secret" aria-labelledby="secret-title">
      <h3 id="secret-title">Secret of {keyName}</h3>
      <p>This is the only time the gateway shows it: it keeps only a hash. Copy it now.</p>
      <div class="field">
        <label for="new-key-secret">New key secret</label>
        <input
          id="new-key-secret"
          ref={field}
          readOnly
          spellcheck={false}
          autocomplete="off"
          value={secret}
          onFocus={(event) => event.currentTarget.select()}
        />
      </div>
      <div class="buttons">
        <button type="button" class="primary" onClick={copy}>
          Copy secret
        </button>
        <button type="button" onClick={onDismiss}>
          I have copied it
        </button>
      </div>
      {copied && <p role="status">{copied}</p>}
    </section>
  );
}
