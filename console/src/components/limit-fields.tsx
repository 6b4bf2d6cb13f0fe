import { describedBy, Field, fieldId } from './field.tsx';

/** The limits keys and teams share (docs/api.md): budget, its period, RPM and TPM, as typed. */
export interface LimitDraft {
  budgetCents: string;
  budgetPeriod: string;
  rpmLimit: string;
  tpmLimit: string;
}

export const EMPTY_LIMITS: LimitDraft = { budgetCents: '', budgetPeriod: '', rpmLimit: '', tpmLimit: '' };

/** A key's or a team's limits as the fields show them: empty for null. */
export function limitDraftOf(holder: {
  budgetCents: number | null;
  budgetPeriod: string | null;
  rpmLimit: number | null;
  tpmLimit: number | null;
}): LimitDraft {
  const shown = (value: number | null) => (value === null ? '' : String(value));
  return {
    budgetCents: shown(holder.budgetCents),
    budgetPeriod: holder.budgetPeriod ?? '',
    rpmLimit: shown(holder.rpmLimit),
    tpmLimit: shown(holder.tpmLimit),
  };
}

export function limitBody(draft: LimitDraft) {
  const number = (text: string) => (text.trim() === '' ? null : Number(text));
  return {
    budgetCents: number(draft.budgetCents),
    budgetPeriod: draft.budgetPeriod === '' ? null : draft.budgetPeriod,
    rpmLimit: number(draft.rpmLimit),
    tpmLimit: number(draft.tpmLimit),
  };
}

interface Props {
  form: string;
  /** Put before each label so two forms on a page name their fields apart ("Team budget"). */
  labelPrefix: string;
  draft: LimitDraft;
  onChange(draft: LimitDraft): void;
  errorFor(name: string): string | null;
}

export function LimitFields({ form, labelPrefix, draft, onChange, errorFor }: Props) {
  const label = (text: string) => (labelPrefix === '' ? text : `${labelPrefix} ${text.toLowerCase()}`);
  const number = (name: keyof LimitDraft, text: string) => {
    const id = fieldId(form, name);
    return (
      <Field id={id} label={label(text)} error={errorFor(name)}>
        <input
          {...describedBy(id, errorFor(name))}
          type="number"
          min={0}
          step="any"
          value={draft[name]}
          onInput={(event) => onChange({ ...draft, [name]: event.currentTarget.value })}
        />
      </Field>
    );
  };
  const periodId = fieldId(form, 'budgetPeriod');
  return (
    <>
      {number('budgetCents', 'Budget (cents)')}
      <Field id={periodId} label={label('Budget period')} error={errorFor('budgetPeriod')}>
        <select
          {...describedBy(periodId, errorFor('budgetPeriod'))}
          value={draft.budgetPeriod}
          onChange={(event) => onChange({ ...draft, budgetPeriod: event.currentTarget.value })}
        >
          <option value="">lifetime</option>
          <option value="daily">daily</option>
          <option value="weekly">weekly</option>
          <option value="monthly">monthly</option>
        </select>
      </Field>
      {number('rpmLimit', 'RPM limit')}
      {number('tpmLimit', 'TPM limit')}
    </>
  );
}
