import type { ComponentChildren } from 'preact';

/** A message about the last action: errors are announced at once, successes politely. */
export function Notice({ kind, children }: { kind: 'error' | 'ok' | 'info'; children: ComponentChildren }) {
  if (kind === 'error') {
    return (
      <p class="notice error" role="alert">
        {children}
      </p>
    );
  }
  return (
    <p class={`notice ${kind}`} role="status">
      {children}
    </p>
  );
}
