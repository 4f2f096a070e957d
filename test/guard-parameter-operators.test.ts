// The guard and bash's parameter operators: a target built on a variable with its ends trimmed (`${V%/}`,
// `${V##*/}`), replaced, re-cased, sliced, read indirectly (`${!N}`), or `~+` and `~-`, is judged by what bash makes
// of it. The e2e side is test/security/guard-parameter-operators.test.ts.
import { describe, expect, it } from 'vitest';
import { judgeCommand } from '../src/guard/judge.js';
import type { CommandContext, GuardPolicy } from '../src/guard/judge.js';

const POLICY: GuardPolicy = { builtinRules: true, allow: [], deny: [] };
// BUILD_DIR and N are not in it.
const env: Record<string, string> = {
  HOME: '/home/u',
  PATH: '/usr/bin:/bin',
  OUT: '/tmp/agent-project/out/',
  REL: './build',
  SLASH: '/',
  NAME: 'OUT',
};
const inProject: CommandContext = { cwd: '/tmp/agent-project', env };
const judgeHere = (script: string) => judgeCommand(script, POLICY, inProject);

describe('parameter operators', () => {
  it.each([
    ['rm -rf "${BUILD_DIR%/}"/*', 'unset-variable'],
    ['rm -rf "${BUILD_DIR#./}"/*', 'unset-variable'],
    ['rm -rf "${BUILD_DIR%%/*}"/etc', 'unset-variable'],
    ['rm -rf "${BUILD_DIR//a/b}"/*', 'unset-variable'],
    ['rm -rf "${BUILD_DIR^^}"/*', 'unset-variable'],
    ['rm -rf "${BUILD_DIR:0:4}"/*', 'unset-variable'],
    ['rm -rf "${HOME#/home/u}"/*', 'unset-variable'],
    ['rm -rf "${REL#./build}"/*', 'unset-variable'],
    ['rm -rf "${HOME:0:1}"', 'recursive-delete'],
    ['rm -rf "${HOME: -2:1}"', 'recursive-delete'],
    ['rm -rf "${HOME%/*}"/*', 'recursive-delete'],
    ['rm -rf "${HOME%%u}"', 'recursive-delete'],
    ['rm -rf "${OUT%/out/}"/..', 'recursive-delete'],
    ['rm -rf "${OUT//out/..}"/..', 'recursive-delete'],
    ['rm -rf "${SLASH/x/y}"', 'recursive-delete'],
    ['rm -rf "${SLASH,,}"', 'recursive-delete'],
    ['rm -rf ~+/../..', 'recursive-delete'],
    ['rm -rf ~-', 'recursive-delete'],
    ['rm -rf ~-/..', 'recursive-delete'],
    ['N=HOME; rm -rf "${!N}"', 'recursive-delete'],
    ['N=SLASH; rm -rf "${!N}"', 'recursive-delete'],
    ['rm -rf "${!N}"/*', 'unset-variable'],
  ])('blocks %j (%s)', async (script, rule) => {
    expect(await judgeHere(script)).toMatchObject({ allowed: false, rule });
  });

  it.each([
    'rm -rf "${OUT%/}"/*',
    'rm -rf "${OUT%/*}"/x',
    'rm -rf "${OUT##*/tmp}"',
    'rm -rf "${REL#./}"/*',
    'rm -rf "${OUT:0:12}"/x',
    'rm -rf "${OUT,,}"/*',
    'rm -rf "${BUILD_DIR:?}"/*',
    'rm -rf "${!NAME}"/*',
    'rm -rf ~+/build',
    'rm -rf ~-/build',
    'rm -rf "${BUILD_DIR%/}"',
    'rm -rf "${1%/}"/*',
    'rm -rf "${OUT%$(date)}"x',
    'N=""; rm -rf "${!N}"/*',
    'set -u; rm -rf "${BUILD_DIR%/}"/*',
  ])('allows %j', async (script) => {
    expect(await judgeHere(script)).toEqual({ allowed: true });
  });
});
