// Network settings checked before any request: a proxy URL that cannot be used is a usage error; a
// NODE_EXTRA_CA_CERTS that cannot be read is worth a warning (Node itself only warns, once, at start-up).
import { readFileSync } from 'node:fs';
import type { NetworkSettings, Variables } from '../config.js';
import { UsageError } from '../outcome.js';
import { PROXY_VARIABLES, proxyFor } from '../api/proxy-settings.js';

const DEFAULT_API_URL = 'https://api.anthropic.com';

/**
 * How the requests travel, from the run's environment. `real` is the process's own: Node has loaded its
 * NODE_EXTRA_CA_CERTS already, so only one that a --env-file names needs loading here. Throws a UsageError for an
 * unusable proxy setting.
 */
export function networkSettings(
  baseURL: string | undefined,
  env: Variables,
  real: Variables,
): { network: NetworkSettings; warnings: string[] } {
  const proxy: Record<string, string> = {};
  for (const name of PROXY_VARIABLES) if (env[name] !== undefined) proxy[name] = env[name];
  const choice = proxyFor(new URL(baseURL ?? DEFAULT_API_URL), proxy);
  if (choice.kind === 'invalid') throw new UsageError(choice.problem);

  const warnings: string[] = [];
  const file = env.NODE_EXTRA_CA_CERTS;
  let extraCa: NetworkSettings['extraCa'];
  if (file !== undefined && file !== '') {
    extraCa = { file, pem: undefined, loadedAtStart: real.NODE_EXTRA_CA_CERTS === file };
    try {
      extraCa.pem = readFileSync(file, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      warnings.push(
        `NODE_EXTRA_CA_CERTS names ${file}, which cannot be read (${code}): no extra certificate authority is trusted.`,
      );
    }
  }
  return { network: { proxy, extraCa, customHeaders: parseCustomHeaders(env.ANTHROPIC_CUSTOM_HEADERS) }, warnings };
}

/** ANTHROPIC_CUSTOM_HEADERS as the SDK reads it: one `Name: value` a line. */
function parseCustomHeaders(text: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of text?.trim() ? text.split('\n') : []) {
    const colon = line.indexOf(':');
    if (colon >= 0) headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return headers;
}
