// The guard keeps what is the same on every command of a run (the compiled --allow and --deny rules, the home
// directory, what the built-in rules name) from one command to the next. These tests change each input between
// commands and expect the verdict that a guard with nothing kept would give.
import { describe, expect, it } from 'vitest';
import { judgeCommand } from '../src/guard/judge.js';
import type { GuardPolicy } from '../src/guard/judge.js';

const builtinOnly = (): GuardPolicy => ({ builtinRules: true, allow: [], deny: [] });

describe('the same policy, judged command after command', () => {
  it('follows a --deny list that changes in place', async () => {
    const policy = builtinOnly();
    expect(await judgeCommand('git push', policy)).toEqual({ allowed: true });
    policy.deny.push('git push*');
    expect(await judgeCommand('git push', policy)).toMatchObject({ allowed: false, rule: 'user-deny' });
    policy.deny[0] = 'git pull*';
    expect(await judgeCommand('git push', policy)).toEqual({ allowed: true });
    expect(await judgeCommand('git pull', policy)).toMatchObject({ allowed: false, rule: 'user-deny' });
    policy.deny.length = 0;
    expect(await judgeCommand('git pull', policy)).toEqual({ allowed: true });
  });

  it('follows an --allow list that changes in place, and one replaced by another', async () => {
    const policy = builtinOnly();
    policy.allow.push('git *');
    expect(await judgeCommand('npm test', policy)).toMatchObject({ allowed: false, rule: 'allow-list' });
    policy.allow.push('npm *');
    expect(await judgeCommand('npm test', policy)).toEqual({ allowed: true });
    const other = { ...policy, allow: ['ls*'] };
    expect(await judgeCommand('npm test', other)).toMatchObject({ allowed: false, rule: 'allow-list' });
    expect(await judgeCommand('npm test', policy)).toEqual({ allowed: true });
  });

  it('names the rule it holds now in the verdict', async () => {
    const policy = { ...builtinOnly(), allow: ['git *'] };
    const first = await judgeCommand('make', policy);
    policy.allow.splice(0, 1, 'cargo *');
    const second = await judgeCommand('make', policy);
    expect(first.allowed === false && first.reason).toContain("'git *'");
    expect(second.allowed === false && second.reason).toContain("'cargo *'");
    expect(second.allowed === false && second.reason).not.toContain("'git *'");
  });
});

describe('the same command, in a changed environment or directory', () => {
  it('reads the home directory the environment names now', async () => {
    const policy = builtinOnly();
    // In /home/b, `.` is the home directory only when HOME says so.
    const inB = (home: string) => ({ cwd: '/home/b', env: { HOME: home, PATH: '/bin' } });
    expect(await judgeCommand('rm -rf .', policy, inB('/home/a'))).toEqual({ allowed: true });
    expect(await judgeCommand('rm -rf .', policy, inB('/home/b'))).toMatchObject({ rule: 'recursive-delete' });
    expect(await judgeCommand('rm -rf .', policy, inB('/home//b/'))).toMatchObject({ rule: 'recursive-delete' });
    expect(await judgeCommand('rm -rf .', policy, inB('/home/a'))).toEqual({ allowed: true });
  });

  it('reads a variable as the environment holds it now', async () => {
    const policy = builtinOnly();
    const withBuild = (build: string | undefined) => ({ cwd: '/tmp', env: { HOME: '/home/u', BUILD_DIR: build } });
    const command = 'rm -rf "$BUILD_DIR"/*';
    expect(await judgeCommand(command, policy, withBuild(undefined))).toMatchObject({ rule: 'unset-variable' });
    expect(await judgeCommand(command, policy, withBuild('/tmp/build'))).toEqual({ allowed: true });
    expect(await judgeCommand(command, policy, withBuild(''))).toMatchObject({ rule: 'unset-variable' });
  });

  it('places relative paths in the directory the command starts in now, and after the line`s own cd', async () => {
    const policy = builtinOnly();
    const env = { HOME: '/home/u' };
    expect(await judgeCommand('rm -rf usr', policy, { cwd: '/tmp/project', env })).toEqual({ allowed: true });
    expect(await judgeCommand('rm -rf usr', policy, { cwd: '/', env })).toMatchObject({ rule: 'recursive-delete' });
    expect(await judgeCommand('rm -rf usr', policy, { cwd: '/tmp/project', env })).toEqual({ allowed: true });
    expect(await judgeCommand('cd / && rm -rf usr', policy, { cwd: '/tmp', env })).toMatchObject({ allowed: false });
    expect(await judgeCommand('cd /tmp/x && rm -rf usr', policy, { cwd: '/', env })).toEqual({ allowed: true });
    expect(await judgeCommand('cd "$D"; rm -rf usr', policy, { cwd: '/', env })).toEqual({ allowed: true });
  });

  it('judges a variable the previous command assigned as unknown to this one: each command is a new shell', async () => {
    const policy = builtinOnly();
    const context = { cwd: '/tmp', env: { HOME: '/home/u' } };
    expect(await judgeCommand('D=/tmp/build; rm -rf "$D"/*', policy, context)).toEqual({ allowed: true });
    expect(await judgeCommand('rm -rf "$D"/*', policy, context)).toMatchObject({ rule: 'unset-variable' });
  });

  it('drops the built-in rules only for the policy that drops them', async () => {
    const skip: GuardPolicy = { builtinRules: false, allow: [], deny: [] };
    expect(await judgeCommand('sudo id', skip)).toEqual({ allowed: true });
    expect(await judgeCommand('sudo id', builtinOnly())).toMatchObject({ rule: 'privilege-escalation' });
    expect(await judgeCommand('sudo id', skip)).toEqual({ allowed: true });
  });
});
