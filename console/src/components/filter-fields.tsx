import { type InputType, inputType } from './field.tsx';

interface FilterProps<Name extends string> {
  /** The form's id prefix, e.g. `logs`. */
  form: string;
  name: Name;
  label: string;
  draft: Record<Name, string>;
  onChange(name: Name, value: string): void;
}

/** A search form's text, number or time filter; empty means "any". */
export function FilterInput<Name extends string>({
  form,
  name,
  label,
  draft,
  onChange,
  type = 'text',
}: FilterProps<Name> & { type?: InputType }) {
  return (
    <div class="field">
      <label for={`${form}-${name}`}>{label}</label>
      <input
        id={`${form}-${name}`}
        {...inputType(type)}
        value={draft[name]}
        onInput={(event) => onChange(name, event.currentTarget.value)}
      />
    </div>
  );
}

/** A search form's choice among values, with "any" first. */
export function FilterSelect<Name extends string>({
  form,
  name,
  label,
  draft,
  onChange,
  options,
}: FilterProps<Name> & { options: { value: string; text: string }[] }) {
  return (
    <div class="field">
      <label for={`${form}-${name}`}>{label}</label>
      <select
        id={`${form}-${name}`}
        value={draft[name]}
        onChange={(event) => onChange(name, event.currentTarget.value)}
      >
        <option value="">any</option>
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.text}
          </option>
        ))}
      </select>
    </div>
  );
}
