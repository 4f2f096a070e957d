// Which environment variables count as secrets, so that the commands never see them.
// The rules look at names (case-insensitive), plus one rule on values: a URL that carries a password.
// They err on the side of withholding: `--pass-env` lets a variable through when a rule is too eager.

/** The credentials of the run itself: withheld always, whatever `--pass-env` says. */
const API_CREDENTIALS: readonly string[] = ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN'];

/** A name containing one of these is a secret (TOKEN also covers GitHub's ACTIONS_ID_TOKEN_REQUEST_URL). */
const CONTAINS = [
  'TOKEN',
  'SECRET',
  'PASSWORD',
  'PASSWD',
  'PASSPHRASE', // GPG_PASSPHRASE, signing-key passphrases
  'CREDENTIAL',
  'PRIVATE',
  'APIKEY', // SENDGRID_APIKEY
  'API_KEY', // API_KEY_FILE and the like, besides *_API_KEY
  'JWT', // GitLab's CI_JOB_JWT, CI_JOB_JWT_V2
  'CONNECTION_STRING', // AZURE_STORAGE_CONNECTION_STRING holds an account key
];

/** A name ending in one of these is a secret. */
const ENDS_WITH = [
  '_KEY',
  '_PAT', // personal access tokens: GH_PAT, AZURE_DEVOPS_PAT
  '_KEY_ID', // AWS_ACCESS_KEY_ID and other clouds' key ids: half a credential
  '_AUTH', // npm's NPM_CONFIG__AUTH (base64 user:password), BASIC_AUTH
  '_PASS', // DB_PASS, SMTP_PASS
  '_PWD', // MYSQL_PWD (PWD and OLDPWD have no underscore before it)
];

/** Well-known secrets that no rule above catches. */
const NAMED = new Set([
  'ANTHROPIC_CUSTOM_HEADERS', // gateways take their keys as custom headers
  'DOCKER_AUTH_CONFIG', // GitLab: registry credentials as JSON
]);

/**
 * The commands inherit the proxy settings unchanged (the network section of the contract), credentials in the URL
 * included: a command that needs the network needs them.
 */
const PROXY_VARIABLES = new Set(['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'FTP_PROXY', 'NO_PROXY']);

/** scheme://user:password@host: a database URL, a registry URL, a webhook with basic auth. */
const URL_WITH_PASSWORD = /^[a-z][a-z0-9+.-]*:\/\/[^\s/?#@:]*:[^\s/?#@]+@/i;

export function isApiCredential(name: string): boolean {
  return API_CREDENTIALS.includes(name);
}

/** True when the variable must be withheld from the commands (unless `--pass-env` lets it through). */
export function looksSecret(name: string, value: string): boolean {
  const upper = name.toUpperCase();
  if (PROXY_VARIABLES.has(upper)) return false;
  if (NAMED.has(upper)) return true;
  if (CONTAINS.some((part) => upper.includes(part))) return true;
  if (ENDS_WITH.some((suffix) => upper.endsWith(suffix))) return true;
  return URL_WITH_PASSWORD.test(value);
}
