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
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_config_(global|prefix|location|omit|include|production)$/i.test(name)));
  const npm = process.env.npm_execpath ? [process.execPath, [process.env.npm_execpath]] : ['npm', []];
  execFileSync(npm[0], [...npm[1], 'install', '--no-save', '--ignore-scripts', '--no-audit', '--no-fund', '--include=dev'], {
    cwd: root,
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}
await import('./build.mjs');
