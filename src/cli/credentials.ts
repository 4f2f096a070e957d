// The API credential, checked before any request: a value an HTTP header cannot carry would otherwise fail
// on every attempt deep inside the transport and be reported as an API failure.
import type { Credentials, Variables } from '../config.js';
import { UsageError } from '../outcome.js';

/** `originOf` says where a variable came from, for messages: the environment or a dotenv file. */
export function readCredentials(env: Variables, originOf: (name: string) => string): Credentials {
  const apiKey = env.ANTHROPIC_API_KEY?.trim();
  if (apiKey) return { apiKey: checked('ANTHROPIC_API_KEY', apiKey, originOf) };
  const authToken = env.ANTHROPIC_AUTH_TOKEN?.trim();
  if (authToken) return { authToken: checked('ANTHROPIC_AUTH_TOKEN', authToken, originOf) };
  throw new UsageError(
    'No credentials: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN for a bearer token), in the environment or in a .env file.',
  );
}

function checked(name: string, value: string, originOf: (name: string) => string): string {
  const problem = credentialProblem(value);
  if (problem) throw new UsageError(`${name} (from ${originOf(name)}) ${problem}`);
  return value;
}

/** What makes a credential unsendable, as the end of a sentence; undefined when it can be sent. */
function credentialProblem(value: string): string | undefined {
  // The ellipsis as an escape: the standalone binary's bundle must be ASCII (scripts/build-binary.mjs).
  if (/\u2026|\.\.\.|^<.*>$/.test(value)) {
    return 'is a placeholder, not a key (it holds an ellipsis or angle brackets): paste the whole key.';
  }
  const space = /\s/.exec(value);
  if (space) {
    return `contains white space at character ${space.index + 1}: a credential is one unbroken word; check that it was copied whole.`;
  }
  const odd = /[^\x21-\x7e]/u.exec(value);
  if (odd) {
    const code = odd[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    const shown = /\p{Cc}/u.test(odd[0]) ? 'a control character' : `'${odd[0]}'`;
    return `contains ${shown} (U+${code}) at character ${odd.index + 1}, which an HTTP header cannot carry: check that the credential was copied unchanged.`;
  }
  return undefined;
}
