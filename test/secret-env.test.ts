import { describe, expect, it } from 'vitest';
import { looksSecret } from '../src/shell/secret-names.js';
import {
  FORCED,
  nonInteractiveEnv,
  heldBackSettings,
  shellStartEnv,
  splitEnvironment,
} from '../src/shell/shell-env.js';

describe('looksSecret', () => {
  it.each([
    'GITHUB_TOKEN',
    'GH_TOKEN',
    'NPM_TOKEN',
    'NODE_AUTH_TOKEN',
    'ACTIONS_RUNTIME_TOKEN',
    'ACTIONS_ID_TOKEN_REQUEST_TOKEN',
    'ACTIONS_ID_TOKEN_REQUEST_URL',
    'AWS_ACCESS_KEY_ID',
    'AWS_SECRET_ACCESS_KEY',
    'AWS_SESSION_TOKEN',
    'AZURE_CLIENT_SECRET',
    'GOOGLE_APPLICATION_CREDENTIALS',
    'PGPASSWORD',
    'MYSQL_PWD',
    'DB_PASS',
    'SMTP_PASSWD',
    'GPG_PASSPHRASE',
    'DEPLOY_PRIVATE_KEY',
    'OPENAI_API_KEY',
    'SENDGRID_APIKEY',
    'GH_PAT',
    'NPM_CONFIG__AUTH',
    'npm_config__auth',
    'npm_config_//registry.npmjs.org/:_authToken',
    'CI_JOB_JWT_V2',
    'AZURE_STORAGE_CONNECTION_STRING',
    'DOCKER_AUTH_CONFIG',
    'ANTHROPIC_CUSTOM_HEADERS',
    'ANTHROPIC_API_KEY',
    'ANTHROPIC_AUTH_TOKEN',
    'my_lowercase_secret',
  ])('withholds %s', (name) => {
    expect(looksSecret(name, 'value')).toBe(true);
  });

  it.each([
    'PATH',
    'HOME',
    'PWD',
    'OLDPWD',
    'LANG',
    'CI',
    'GITHUB_ACTIONS',
    'GITHUB_REPOSITORY',
    'ACTIONS_CACHE_URL',
    'ACTIONS_RUNTIME_URL',
    'SSH_AUTH_SOCK',
    'KUBECONFIG',
    'KEYBOARD_LAYOUT',
    'MONKEY',
  ])('keeps %s', (name) => {
    expect(looksSecret(name, 'value')).toBe(false);
  });

  it('withholds a URL that carries a password, whatever the name, but not one without', () => {
    expect(looksSecret('DATABASE_URL', 'postgres://app:s3cr3t@db.internal:5432/app')).toBe(true);
    expect(looksSecret('REDIS_URL', 'rediss://:onlypassword@cache:6380')).toBe(true);
    expect(looksSecret('DATABASE_URL', 'postgres://app@db.internal/app')).toBe(false);
    expect(looksSecret('DATABASE_URL', 'postgres://localhost/app')).toBe(false);
    expect(looksSecret('DOCS_URL', 'https://example.com/a:b@c')).toBe(false);
  });

  it('leaves the proxy variables to the commands, credentials included', () => {
    for (const name of ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'ALL_PROXY', 'NO_PROXY']) {
      expect(looksSecret(name, 'http://user:pass@proxy.internal:3128')).toBe(false);
    }
  });
});

describe('splitEnvironment', () => {
  const base = {
    PATH: '/usr/bin',
    GITHUB_TOKEN: 'ghp_x',
    NPM_TOKEN: 'npm_x',
    ANTHROPIC_API_KEY: 'sk-x',
    ANTHROPIC_AUTH_TOKEN: 'tok-x',
    UNSET: undefined,
  };

  it('withholds secrets and the API credentials, sorted by name', () => {
    const { kept, withheld } = splitEnvironment(base);
    expect(kept).toEqual({ PATH: '/usr/bin' });
    expect(withheld.map((variable) => variable.name)).toEqual([
      'ANTHROPIC_API_KEY',
      'ANTHROPIC_AUTH_TOKEN',
      'GITHUB_TOKEN',
      'NPM_TOKEN',
    ]);
  });

  it('lets through what --pass-env matches, never the API credentials', () => {
    const { kept, withheld } = splitEnvironment(base, () => true);
    expect(kept).toEqual({ PATH: '/usr/bin', GITHUB_TOKEN: 'ghp_x', NPM_TOKEN: 'npm_x' });
    expect(withheld.map((variable) => variable.name)).toEqual(['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN']);
  });

  it('starts the shell without the settings its prologue sets, which the command sees all the same', () => {
    const seen = nonInteractiveEnv({ ...base, PAGER: 'less', POSIXLY_CORRECT: '', SHELLOPTS: 'posix' }, '/work');
    const start = shellStartEnv(seen);
    for (const name of Object.keys(FORCED)) expect(start[name]).toBeUndefined();
    expect(start.POSIXLY_CORRECT).toBeUndefined();
    expect(start.SHELLOPTS).toBeUndefined();
    expect(start.PWD).toBe('/work');
    expect(start.CI).toBe('true');
    expect(seen).toEqual({ ...start, ...FORCED, POSIXLY_CORRECT: '', SHELLOPTS: 'posix' });
    expect(heldBackSettings(seen)).toEqual({ POSIXLY_CORRECT: '', SHELLOPTS: 'posix' });
    expect(heldBackSettings({ SHELLOPTS: 'braceexpand:hashall', POSIX_PEDANTIC: '1' })).toEqual({
      POSIX_PEDANTIC: '1',
    });
    expect(heldBackSettings({ SHELLOPTS: 'hashall:privileged' })).toEqual({ SHELLOPTS: 'hashall:privileged' });
  });

  it('is what nonInteractiveEnv builds the commands environment from', () => {
    const env = nonInteractiveEnv(base, '/work', (name) => name === 'NPM_TOKEN');
    expect(env.NPM_TOKEN).toBe('npm_x');
    expect(env.GITHUB_TOKEN).toBeUndefined();
    expect(env.ANTHROPIC_API_KEY).toBeUndefined();
    expect(env.PAGER).toBe('cat');
    expect(nonInteractiveEnv(base, '/work').NPM_TOKEN).toBeUndefined();
  });
});
