import type { ComponentChildren } from 'preact';

/** The input types the console's forms use. */
export type InputType = 'text' | 'number' | 'password' | 'url' | 'datetime-local';

/**
 * An input's `type` given by a variable. Preact 11 types input attributes as a union keyed by a
 * literal `type`, which a variable of several types cannot pick; every type here takes the
 * attributes the forms set (value, onInput, autocomplete).
 */
export function inputType(type: InputType): { type: 'text' } {
  return { type } as { type: 'text' };
}

/** A field's id from its form and its name, so its label, hint and error point at it. */
export function fieldId(form: string, name: string): string {
  return `${form}-${name.replace(/[^A-Za-z0-9_-]/g, '-')}`;
}

interface FieldProps {
  id: string;
  label: string;
  error?: string | null;
  hint?: string;
  children: ComponentChildren;
}

/** A labelled control with its hint and its error, tied to it by aria-describedby in `describedBy`. */
export function Field({ id, label, error, hint, children }: FieldProps) {
  return (
    <div class={error ? 'field invalid' : 'field'}>
      <label for={id}>{label}</label>
      {children}
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {error && (
        <p class="field-error" id={`${id}-error`} role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

/** The aria attributes of a control inside a Field. */
export function describedBy(id: string, error?: string | null, hint?: string) {
  const ids = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter((part) => part !== '');
  return {
    id,
    'aria-invalid': error ? true : undefined,
    'aria-describedby': ids.length > 0 ? ids.join(' ') : undefined,
  };
}
