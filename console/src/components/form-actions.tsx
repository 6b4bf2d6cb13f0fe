import { Notice } from './notice.tsx';

interface FormActionsProps {
  /** The form's refusal (the API's message), shown above the buttons. */
  error: string | null;
  /** True while an existing object is edited: the submit saves it and Cancel leaves the edit. */
  editing: boolean;
  createLabel: string;
  saveLabel: string;
  onCancel(): void;
}

/** The end of a create-or-edit form: its error, the submit button, and Cancel while editing. */
export function FormActions({ error, editing, createLabel, saveLabel, onCancel }: FormActionsProps) {
  return (
    <>
      {error && <Notice kind="error">{error}</Notice>}
      <div class="buttons">
        <button type="submit" class="primary">
          {editing ? saveLabel : createLabel}
        </button>
        {editing && (
          <button type="button" onClick={onCancel}>
            Cancel edit
          </button>
        )}
      </div>
    </>
  );
}
