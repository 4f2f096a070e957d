import type { RequestExtras } from '../api/model.js';
import { fallbackWarning } from './messages.js';

/**
 * The API's constrained output (`output_config.format`) for every request, until the endpoint refuses the field: a 400
 * (or a gateway's 422) whose message names it. Then the run goes on without it, once warned.
 */
export function outputConfigExtras(schema: Record<string, unknown>, warn: (message: string) => void): RequestExtras {
  let on = true;
  return {
    fields: () => (on ? { output_config: { format: { type: 'json_schema', schema } } } : {}),
    refused: (failure) => {
      const refusal = (failure.status === 400 || failure.status === 422) && /output_config/.test(failure.message);
      if (!on || !refusal) return false;
      on = false;
      warn(fallbackWarning(failure.message));
      return true;
    },
  };
}
