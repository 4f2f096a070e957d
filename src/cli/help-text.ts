// The part of `--help` after the options. Each list is one entry a line: add a line to add an entry.

const EXAMPLES: Array<[command: string, comment: string]> = [
  ['agent "What is the current git branch?"', 'ask; the answer goes to stdout'],
  ['git diff | agent "Review this change"', 'piped stdin is context for the prompt'],
  ['agent -f task.md --transcript run.jsonl', 'the prompt from a file, the whole run logged'],
  ["agent --allow 'git *' --allow 'npm test*' \"Fix the tests\"", 'only commands matching a rule run'],
  ['agent --output-format json "Summarise TODO.md" > result.json', 'a result object for scripts and CI'],
  ['agent --json-schema verdict.json "Review the diff" | jq .verdict', 'an answer that matches a JSON Schema'],
  ['agent -c "now also update the docs"', 'go on with the last session of this directory'],
  ['agent --max-budget-usd 2 --max-duration 900 "Fix the build"', 'at most $2 and 15 minutes'],
  ['agent -- "-v: what does this flag do in ls?"', 'after --, everything is prompt'],
];

const ENVIRONMENT: Array<[name: string, meaning: string]> = [
  ['ANTHROPIC_API_KEY', 'the API key'],
  ['ANTHROPIC_AUTH_TOKEN', 'a bearer token, when ANTHROPIC_API_KEY is unset'],
  ['ANTHROPIC_BASE_URL', 'any Anthropic-compatible endpoint (without /v1)'],
  ['MODEL_ID, ANTHROPIC_MODEL', 'the model, when --model is not given'],
  ['ANTHROPIC_CUSTOM_HEADERS', 'extra request headers, one "Name: value" a line'],
  ['HTTPS_PROXY, HTTP_PROXY, NO_PROXY', 'the proxy for API requests, as curl reads them'],
  ['NODE_EXTRA_CA_CERTS', 'a PEM file of extra certificate authorities to trust'],
  ['XDG_STATE_HOME', 'where sessions are saved (default ~/.local/state)'],
  ['NO_COLOR', 'when not empty: no colour on stderr'],
  ['FORCE_COLOR', 'colour on stderr even off a terminal; 0: none'],
  ['AGENT_DEBUG', 'when set: stack traces for internal errors'],
];

const EXIT_CODES: Array<[code: string, meaning: string]> = [
  ['0', 'the model finished and its answer was printed'],
  ['1', 'no finished answer (a limit, a budget, a refusal), or the result not written'],
  ['2', 'usage or configuration error; no request was sent'],
  ['3', 'API failure: credentials, bad request, connection, or retries exhausted'],
  ['130', 'interrupted by SIGINT'],
  ['141', "stdout's reader went away (EPIPE)"],
  ['143', 'terminated by SIGTERM'],
];

export function helpEpilogue(): string {
  return [
    '',
    section(
      'Examples:',
      EXAMPLES.map(([command, comment]) => [`$ ${command}`, `# ${comment}`]),
      true,
    ),
    section('Environment:', ENVIRONMENT),
    section('Exit codes:', EXIT_CODES),
    'The answer goes to stdout; commands, narration and progress go to stderr.',
  ].join('\n');
}

/** A heading, then its entries in two aligned columns (or, stacked, each comment above its command). */
function section(heading: string, rows: Array<[string, string]>, stacked = false): string {
  const width = Math.max(...rows.map(([left]) => left.length));
  const lines = stacked
    ? rows.flatMap(([left, right]) => [`  ${right}`, `  ${left}`, ''])
    : [...rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`), ''];
  return [heading, ...lines].join('\n');
}
