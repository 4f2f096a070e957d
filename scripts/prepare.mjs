// `npm install` in a clone, and an install from a git URL, build dist/ here. npm gives a global install from git
// no dependencies while it prepares the package (npm/cli#8440), so when the bundler is missing this first
// installs the build's own dependencies into the clone, with the global install's settings taken out.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';

const root = new URL('..', import.meta.url);

function bundlerPresent() {
  try {
    createRequire(new URL('package.json', root)).resolve('esbuild');
    return true;
  } catch {
    return false;
  }
}

if (!bundlerPresent()) {
  // Keep only the settings that say where and how to reach the registry; the rest belong to the outer install.
  const kept = /^npm_config_(registry|cache|userconfig|globalconfig|cafile|ca|strict_ssl|proxy|https_proxy|noproxy|no_proxy)$/i;
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_config_/i.test(name) || kept.test(name)));
  const npm = process.env.npm_execpath ? [process.execPath, [process.env.npm_execpath]] : ['npm', []];
  execFileSync(npm[0], [...npm[1], 'install', '--no-save', '--ignore-scripts', '--no-audit', '--no-fund', '--include=dev'], {
    cwd: root,
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}
await import('./build.mjs');
