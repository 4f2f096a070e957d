// Network settings checked before any request: a proxy URL that cannot be used is a usage error; a
// NODE_EXTRA_CA_CERTS that cannot take effect is worth a warning (Node itself only warns, once, at start-up).
import { accessSync, constants } from 'node:fs';
import { UsageError } from '../outcome.js';
import { proxyFor } from '../api/proxy-settings.js';

const DEFAULT_API_URL = 'https://api.anthropic.com';

/** Throws a UsageError for an unusable proxy setting; returns warnings to show. */
export function checkNetworkSettings(baseURL: string | undefined, env: NodeJS.ProcessEnv, fromDotenv: ReadonlyMap<string, string>): string[] {
  const choice = proxyFor(new URL(baseURL ?? DEFAULT_API_URL), env);
  if (choice.kind === 'invalid') throw new UsageError(choice.problem);

  const caFile = env.NODE_EXTRA_CA_CERTS;
  if (caFile === undefined || caFile === '') return [];
  const dotenvPath = fromDotenv.get('NODE_EXTRA_CA_CERTS');
  if (dotenvPath !== undefined) {
    return [`NODE_EXTRA_CA_CERTS from ${dotenvPath} has no effect: Node reads it only when it starts; set it in the environment.`];
  }
  try {
    accessSync(caFile, constants.R_OK);
    return [];
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    return [`NODE_EXTRA_CA_CERTS names ${caFile}, which cannot be read (${code}): no extra certificate authority is trusted.`];
  }
}
