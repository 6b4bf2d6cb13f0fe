import { useState } from 'preact/hooks';
import { type ApiError, asApiError } from './api.ts';

/**
 * A form's submit and the API's answer to it: a 400 whose `param` names one of `ownFields` (or a
 * path under it: `pricing.inputCentsPerMTok`) shows next to that field, any other under the form.
 */
export function useFormErrors(ownFields: readonly string[]) {
  const [error, setError] = useState<ApiError | null>(null);
  const fieldOf = (param: string) => param.split('.')[0];
  const errorFor = (field: string) => (error?.param && fieldOf(error.param) === field ? error.message : null);
  const shownAtField = error?.param ? ownFields.includes(fieldOf(error.param)) : false;
  const formError =
    error === null || shownAtField ? null : error.param ? `${error.param}: ${error.message}` : error.message;
  const submitting = (run: () => Promise<void>) => async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      await run();
    } catch (reason) {
      setError(asApiError(reason));
    }
  };
  return { errorFor, formError, submitting };
}
