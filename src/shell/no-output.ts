/** What the model reads when a command printed nothing, or only blank space (the API rejects blank text). */
export const NO_OUTPUT = '(no output)';
