// A line of plain words (`npm test`, `git status --short`) is read without the bash parser. These tests hold that
// reading to the parser's: the same findings for every plain line, and no line that means more to bash than its
// words taken for plain.
import { describe, expect, it } from 'vitest';
import { judgeCommand } from '../src/guard/judge.js';
import type { CommandContext, GuardPolicy } from '../src/guard/judge.js';
import { plainCommandWords } from '../src/guard/plain.js';
import { VariableScope } from '../src/guard/variables.js';
import { walkCommandLine } from '../src/guard/walk.js';

const POLICY: GuardPolicy = { builtinRules: true, allow: [], deny: [] };
const env = { HOME: '/home/u', PATH: '/usr/bin:/bin' };

/** Wrappers, shells, builtins with effects, rule targets, option clusters and path shapes, in plain words. */
const TOKENS: readonly string[] = (
  'true ls git push --force status env nice -n 5 nohup busybox timeout 10 -k 1 command -v -V builtin exec -a ' +
  'stdbuf -o0 ionice -c 3 xargs -I -0 watch su sudo doas bash sh dash zsh -c -s -l -i -e -u -x -euo pipefail ' +
  'eval find . .. / /usr /tmp /home/u ./x ../y -delete -exec -execdir rm -rf -r -R --recursive chmod chown ' +
  'chgrp 777 dd of shred tee /dev/sda mkfs mkfs.ext4 wipefs systemctl reboot poweroff init 0 6 shutdown ' +
  'set +u unset source declare export local readonly typeset let read printf wait -p cd pushd - -- : a,b x+y ' +
  'node_modules 1.2.3 host:port'
).split(' ');

/** A small deterministic generator, so that a failure names a line that fails again. */
function* plainLines(count: number): Generator<string> {
  let state = 7;
  const next = (bound: number) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state % bound;
  };
  for (let line = 0; line < count; line += 1) {
    const words = Array.from({ length: 1 + next(6) }, () => TOKENS[next(TOKENS.length)] as string);
    yield words.join(next(4) === 0 ? ' \t ' : ' ');
  }
}

const walked = (line: string) => walkCommandLine(line, new VariableScope(env, '/home/u'));

describe('a line of plain words', () => {
  it('is read as the parser reads it, followed by ";" so that the parser reads it', () => {
    let compared = 0;
    for (const line of plainLines(3000)) {
      expect(plainCommandWords(line), line).toBeDefined();
      const plain = walked(line);
      const parsed = walked(`${line};`);
      expect(plain.findings, line).toEqual(parsed.findings);
      expect([...plain.functionNames]).toEqual([...parsed.functionNames]);
      compared += 1;
    }
    expect(compared).toBe(3000);
  });

  it('is judged as the parser would judge it, in the directory and with the environment the command gets', async () => {
    const contexts: CommandContext[] = [{}, { cwd: '/', env }, { cwd: '/home/u/src', env }, { cwd: '/usr' }];
    for (const line of plainLines(400)) {
      for (const context of contexts) {
        expect(await judgeCommand(line, POLICY, context), line).toEqual(
          await judgeCommand(`${line};`, POLICY, context),
        );
      }
    }
  });

  it('still has its hidden commands blocked: wrappers, shells, eval and find reach them', async () => {
    for (const line of [
      'sudo id',
      'env sudo id',
      'nice -n 5 timeout 10 sudo id',
      'xargs rm -rf /',
      'bash -c reboot',
      'eval sudo id',
      'find / -delete',
      'find / -exec rm {} +',
      'rm -rf /usr',
      'mkfs.ext4 /dev/sda',
      'systemctl reboot',
    ]) {
      expect(await judgeCommand(line, POLICY, { cwd: '/tmp', env }), line).toMatchObject({ allowed: false });
    }
  });
});

describe('a line that only looks plain goes to the parser', () => {
  it.each([
    ['a reserved word that opens a compound command', 'coproc sudo id'],
    ['a reserved word that times a pipeline', 'time sudo id'],
    ['a loop without its body', 'while sudo id'],
    ['a newline', 'true\nsudo id'],
    ['a carriage return', 'true\rsudo id'],
    ['a separator', 'true;sudo id'],
    ['a pipe', 'true|sudo id'],
    ['an ampersand', 'true&sudo id'],
    ['a comment', 'true # sudo id'],
    ['a quote', 's"u"do id'],
    ['a backslash', 's\\udo id'],
    ['a variable', 'rm -rf $D/'],
    ['a command substitution', 'echo `sudo id`'],
    ['a tilde', 'rm -rf ~'],
    ['a glob', 'rm -rf /*'],
    ['a brace expansion', 'rm -rf /{usr,etc}'],
    ['an assignment', 'D=/ rm -rf x'],
    ['a redirection', 'echo x >/dev/sda'],
    ['a subshell', '(sudo id)'],
    ['a history-style bang', '! sudo id'],
    ['a job spec', '%1'],
    ['a character outside ASCII', 'sudo\u00a0id'],
  ])('%s: %j', async (_, line) => {
    expect(plainCommandWords(line)).toBeUndefined();
  });

  it.each([
    'if',
    'then',
    'else',
    'elif',
    'fi',
    'for',
    'select',
    'case',
    'esac',
    'while',
    'until',
    'do',
    'done',
    'in',
    'coproc',
    'time',
    'function',
  ])('the reserved word %j, wherever it stands', (word) => {
    expect(plainCommandWords(`${word} sudo id`)).toBeUndefined();
    expect(plainCommandWords(`echo ${word}`)).toBeUndefined();
  });

  it('and is judged there: what the reserved words run is blocked', async () => {
    for (const line of ['coproc sudo id', 'time sudo id', 'while sudo id', 'true\nsudo id', 'true\rsudo id;sudo id']) {
      expect(await judgeCommand(line, POLICY, { cwd: '/tmp', env }), line).toMatchObject({ allowed: false });
    }
  });

  it('an empty or blank line has no words', () => {
    expect(plainCommandWords('')).toBeUndefined();
    expect(plainCommandWords(' \t ')).toBeUndefined();
  });
});
