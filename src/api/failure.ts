/** Why a model call brought back no message. The loop turns it into the run's Outcome. */
export type ModelFailure =
  | { kind: 'aborted' }
  | {
      kind: 'api';
      /** What went wrong, for people: the status, the API's error type and message, the request id. */
      message: string;
      /** What to check, when the failure points at something the user can fix. */
      hint: string | undefined;
      status: number | undefined;
      requestId: string | undefined;
    };

const STATUS_HINTS: Readonly<Record<number, string>> = {
  401: 'Check ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN).',
  403: 'The credential is not allowed to do this; check its permissions.',
  404: 'Check --model (or MODEL_ID) and ANTHROPIC_BASE_URL.',
  413: 'The request was too large; use --context-window to budget for a smaller window.',
};

export function hintForStatus(status: number | undefined): string | undefined {
  return status === undefined ? undefined : STATUS_HINTS[status];
}

/** The failure as one or two plain lines. */
export function describeFailure(failure: Extract<ModelFailure, { kind: 'api' }>): string {
  return `API request failed: ${failure.message}${failure.hint ? `\n${failure.hint}` : ''}`;
}
