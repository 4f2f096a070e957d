import { afterAll, describe, expect, it } from 'vitest';
import { judgeCommand, validateRule } from '../src/guard/judge.js';
import type { GuardPolicy, GuardVerdict } from '../src/guard/judge.js';

const DEFAULT_POLICY: GuardPolicy = { builtinRules: true, allow: [], deny: [] };

async function judge(script: string, policy: GuardPolicy = DEFAULT_POLICY): Promise<GuardVerdict> {
  return judgeCommand(script, policy);
}

// [command, rule id that must block it]
const DANGEROUS: readonly (readonly [string, string])[] = [
  ['rm -rf /tmp', 'recursive-delete'],
  ['rm -rf /tmp/*', 'recursive-delete'],
  ['rm -rf /mnt', 'recursive-delete'],
  ['busybox rm -rf /', 'recursive-delete'],
  ['cd / && rm -rf *', 'recursive-delete'],
  ['cd ~ && rm -rf .', 'recursive-delete'],
  ['cd /usr; rm -rf ./*', 'recursive-delete'],
  ['cd /tmp/x/.. && rm -rf *', 'recursive-delete'],
  ['cd / && chmod -R 777 .', 'recursive-permissions'],
  // privilege escalation, in every disguise
  ['sudo id', 'privilege-escalation'],
  ['su -c "id"', 'privilege-escalation'],
  ['doas id', 'privilege-escalation'],
  ['pkexec id', 'privilege-escalation'],
  ['runuser -u nobody id', 'privilege-escalation'],
  ['s""udo id', 'privilege-escalation'],
  ["'sudo' id", 'privilege-escalation'],
  ['\\sudo id', 'privilege-escalation'],
  ['/usr/bin/sudo id', 'privilege-escalation'],
  ['env FOO=1 sudo x', 'privilege-escalation'],
  ['env -i PATH=/bin sudo x', 'privilege-escalation'],
  ['env -u HOME sudo x', 'privilege-escalation'],
  ['nice -n 5 sudo id', 'privilege-escalation'],
  ['timeout 5 sudo id', 'privilege-escalation'],
  ['timeout -s KILL 5 sudo id', 'privilege-escalation'],
  ['command sudo id', 'privilege-escalation'],
  ['exec sudo id', 'privilege-escalation'],
  ['nohup sudo id &', 'privilege-escalation'],
  ['stdbuf -o0 sudo id', 'privilege-escalation'],
  ['FOO=1 sudo id', 'privilege-escalation'],
  ['time sudo id', 'privilege-escalation'],
  ['echo $(sudo id)', 'privilege-escalation'],
  ['echo "`sudo id`"', 'privilege-escalation'],
  ['x=$(sudo id)', 'privilege-escalation'],
  ['cat <(sudo cat /etc/shadow)', 'privilege-escalation'],
  ['ls && sudo id', 'privilege-escalation'],
  ['false || sudo id', 'privilege-escalation'],
  ['ls | sudo tee /x', 'privilege-escalation'],
  ['(cd /; sudo id)', 'privilege-escalation'],
  ['{ echo; sudo id; }', 'privilege-escalation'],
  ['f() { sudo id; }; f', 'privilege-escalation'],
  ['for i in 1; do sudo id; done', 'privilege-escalation'],
  ['if true; then sudo id; fi', 'privilege-escalation'],
  ['while sudo id; do break; done', 'privilege-escalation'],
  ['case x in x) sudo id;; esac', 'privilege-escalation'],
  ['bash -c "sudo id"', 'privilege-escalation'],
  ['sh -c \'bash -c "sudo id"\'', 'privilege-escalation'],
  ['bash -lc "ls; sudo id"', 'privilege-escalation'],
  ['zsh -c "doas id"', 'privilege-escalation'],
  ["eval 'sudo id'", 'privilege-escalation'],
  ['eval sudo id', 'privilege-escalation'],
  ['bash <<EOF\nsudo id\nEOF', 'privilege-escalation'],
  ['cat <<EOF\n$(sudo id)\nEOF', 'privilege-escalation'],
  ['find . -name x -exec sudo rm {} \\;', 'privilege-escalation'],
  ['xargs sudo rm < list', 'privilege-escalation'],
  // power state
  ['shutdown -h now', 'power-state'],
  ['/sbin/reboot', 'power-state'],
  ['halt', 'power-state'],
  ['poweroff', 'power-state'],
  ['systemctl poweroff', 'power-state'],
  ['systemctl --force reboot', 'power-state'],
  ['systemctl suspend', 'power-state'],
  ['init 0', 'power-state'],
  ['telinit 6', 'power-state'],
  // recursive deletion of the system or home
  ['rm -rf /', 'recursive-delete'],
  ['rm -fr /', 'recursive-delete'],
  ['rm -r -f /*', 'recursive-delete'],
  ['rm --recursive --force /', 'recursive-delete'],
  ['rm -Rf //', 'recursive-delete'],
  ['rm -rf /..', 'recursive-delete'],
  ['rm -rf /tmp/../', 'recursive-delete'],
  ['rm -rf -- /', 'recursive-delete'],
  ['rm / -rf', 'recursive-delete'],
  ['rm -rf --no-preserve-root /', 'recursive-delete'],
  ['rm -rf ~', 'recursive-delete'],
  ['rm -rf ~/', 'recursive-delete'],
  ['rm -rf ~/*', 'recursive-delete'],
  ['rm -rf ~/..', 'recursive-delete'],
  ['rm -rf $HOME', 'recursive-delete'],
  ['rm -rf "$HOME"', 'recursive-delete'],
  ['rm -rf "${HOME}/"', 'recursive-delete'],
  ['rm -rf ${HOME}/*', 'recursive-delete'],
  ['rm -rf /etc', 'recursive-delete'],
  ['rm -rf /usr/', 'recursive-delete'],
  ['rm -rf /var/*', 'recursive-delete'],
  ['rm -rf /home', 'recursive-delete'],
  ['rm -rf /b?n', 'recursive-delete'],
  ['rm -rf /{bin,etc}', 'recursive-delete'],
  ['rm -rf ~root', 'recursive-delete'],
  ['cd /tmp && rm -rf /', 'recursive-delete'],
  ['echo / | xargs rm -rf /', 'recursive-delete'],
  ['timeout 10 rm -rf /', 'recursive-delete'],
  ['bash -c "rm -rf /"', 'recursive-delete'],
  ['eval "rm -rf ~"', 'recursive-delete'],
  // permissions
  ['chmod -R 777 /', 'recursive-permissions'],
  ['chmod 777 -R /etc', 'recursive-permissions'],
  ['chown -R nobody: ~', 'recursive-permissions'],
  ['chgrp --recursive users /usr', 'recursive-permissions'],
  // find
  ['find / -delete', 'find-delete'],
  ['find / -name "*.log" -delete', 'find-delete'],
  ['find /etc -type f -exec rm -f {} +', 'find-delete'],
  ['find ~ -execdir rm {} \\;', 'find-delete'],
  ['find -L / -delete', 'find-delete'],
  // filesystems and devices
  ['mkfs.ext4 /dev/sda1', 'make-filesystem'],
  ['mkfs -t ext4 /dev/sdb', 'make-filesystem'],
  ['mke2fs /dev/sdb1', 'make-filesystem'],
  ['mkswap /dev/sda2', 'make-filesystem'],
  ['dd if=/dev/zero of=/dev/sda bs=1M', 'device-write'],
  ['dd if=x.img of=/dev/nvme0n1', 'device-write'],
  ['shred /dev/sda', 'device-write'],
  ['echo x > /dev/sda', 'device-write'],
  ['cat x.img >> /dev/nvme0n1', 'device-write'],
  ['echo x &> /dev/mmcblk0', 'device-write'],
  ['echo x >| /dev/vda', 'device-write'],
  ['{ cat x; } > /dev/mapper/root', 'device-write'],
  ['cat img | tee /dev/xvda', 'device-write'],
  ['echo b > /proc/sysrq-trigger', 'device-write'],
  // fork bombs
  [':(){ :|:& };:', 'fork-bomb'],
  ['bomb() { bomb | bomb & }; bomb', 'fork-bomb'],
  ['f(){ f & f; }; f', 'fork-bomb'],
  ['bash -c ":(){ :|:& };:"', 'fork-bomb'],
];

const SAFE: readonly string[] = [
  'cd build && rm -rf *',
  'cd /tmp/work && rm -rf *',
  'cd / && ls && cd - && rm -rf *',
  'ls > /dev/null',
  'ls 2>/dev/null',
  'make &> /dev/null',
  'echo hi > /dev/stderr',
  'echo hi >/dev/stdout',
  'echo hi > /dev/tty',
  'echo hi >&2',
  'exec 3>&1; echo hi >&3',
  'cat /dev/fd/3 3< x > /dev/fd/1',
  'head -c 10 /dev/urandom | od',
  'grep -r sudo .',
  'grep -rn "rm -rf /" docs/',
  'echo "rm -rf / is bad"',
  "echo 'sudo shutdown now'",
  'man shutdown',
  'which sudo',
  'command -v sudo',
  'type reboot',
  'apt-cache show sudo',
  'cat <<EOF\nrm -rf /\nsudo reboot\nEOF',
  "cat <<'EOF' > script.sh\nsudo rm -rf / $(sudo id)\nEOF",
  'echo hi # sudo rm -rf /',
  'rm -rf ./build',
  'rm -rf build dist',
  'rm -rf node_modules',
  'rm -rf /tmp/x',
  'rm -rf /var/tmp/cache',
  'rm -rf ~/.cache/pip',
  'rm -rf "$HOME/.npm/_cacache"',
  'rm -rf "$TMPDIR"/*',
  'rm -rf "$tmp"',
  'rm /etc',
  'rm -f ./-r',
  'rm -- -rf',
  'chmod -R u+w ./src',
  'chmod 755 /tmp/x',
  'chown -R "$(id -u)" ./build',
  'find . -name "*.o" -delete',
  'find /tmp/work -type f -exec rm {} +',
  'find / -name passwd 2>/dev/null',
  'find ~ -name "*.txt"',
  'dd if=/dev/zero of=./disk.img bs=1M count=1',
  'dd if=/dev/sda of=./backup.img count=1',
  'mkdir -p build && cd build',
  'git status && npm test || echo fail',
  'npm run build 2>&1 | tail -20',
  'systemctl status nginx',
  'systemctl --user restart app',
  'init_db --force',
  'env FOO=1 node script.js',
  'timeout 5 npm test',
  'nice -n 10 make -j2',
  'xargs -0 rm -f < list',
  'bash -c "echo hello"',
  'sh -c \'bash -c "ls -la"\'',
  "eval 'echo ok'",
  'bash script.sh',
  'python3 - <<EOF\nprint("sudo")\nEOF',
  'f() { echo "$1"; }; f a',
  'retry() { "$@" || { sleep 1; retry "$@"; }; }; retry make',
  'walk() { for d in "$1"/*; do [ -d "$d" ] && walk "$d"; done; }; walk .',
  'for f in *.ts; do wc -l "$f"; done',
  '[[ -f package.json ]] && jq .name package.json',
  'arr=(a b c); echo "${arr[@]}"',
  'diff <(sort a) <(sort b)',
  'echo $((1 + 2))',
  'tee out.txt < in.txt',
  'shred -u ./secret.txt',
  'git commit -m "do not sudo or rm -rf / here"',
];

const counts = { dangerous: DANGEROUS.length, safe: SAFE.length };

afterAll(() => {
  console.log(`guard table: ${counts.dangerous} dangerous commands blocked, ${counts.safe} safe commands allowed`);
});

describe('built-in rules block dangerous commands', () => {
  it.each(DANGEROUS)('blocks %j (%s)', async (command, rule) => {
    const verdict = await judge(command);
    expect(verdict).toMatchObject({ allowed: false, rule });
  });

  it('has a table of at least 60 dangerous commands', () => {
    expect(counts.dangerous).toBeGreaterThanOrEqual(60);
  });
});

describe('ordinary work is never blocked', () => {
  it.each(SAFE.map((command) => [command]))('allows %j', async (command) => {
    expect(await judge(command)).toEqual({ allowed: true });
  });

  it('has a table of at least 60 safe commands', () => {
    expect(counts.safe).toBeGreaterThanOrEqual(60);
  });
});

describe('the verdict', () => {
  it('names the rule, the offending simple command and what to do', async () => {
    const verdict = await judge('ls -la && env FOO=1 sudo id');
    expect(verdict).toEqual({
      allowed: false,
      rule: 'privilege-escalation',
      command: 'env FOO=1 sudo id',
      reason:
        "blocked by the guard (privilege-escalation): 'env FOO=1 sudo id' — commands run unprivileged; do the work without sudo or ask the user.",
    });
  });

  it('quotes a redirection with the command that makes it', async () => {
    const verdict = await judge('echo x > /dev/sda');
    expect(verdict).toMatchObject({ allowed: false, rule: 'device-write', command: 'echo x > /dev/sda' });
  });
});

describe('commands the parser rejects', () => {
  it.each([['echo "abc'], ['echo $('], ['if then fi'], ['echo )'], ['for do done']])('blocks %j', async (command) => {
    const verdict = await judge(command);
    expect(verdict).toMatchObject({ allowed: false, rule: 'parse-error', command });
    if (!verdict.allowed) expect(verdict.reason).toMatch(/could not be parsed as bash: .+/);
  });

  it("includes the parser's message", async () => {
    const verdict = await judge('echo "abc');
    expect(verdict.allowed === false && verdict.reason).toContain('unterminated double quote');
  });

  it('blocks a broken script nested in bash -c', async () => {
    expect(await judge('bash -c \'echo "\'')).toMatchObject({ allowed: false, rule: 'parse-error' });
  });

  it('blocks scripts nested deeper than it follows', async () => {
    let script = 'sudo id';
    for (let level = 0; level < 6; level += 1) script = `bash -c ${JSON.stringify(script).replace(/\$/g, '\\$')}`;
    expect(await judge(script)).toMatchObject({ allowed: false, rule: 'nesting-too-deep' });
  });

  it('still follows two levels of nesting', async () => {
    expect(await judge(`bash -c "sh -c 'eval sudo id'"`)).toMatchObject({ allowed: false, rule: 'privilege-escalation' });
  });
});

describe('user rules', () => {
  const policy = (overrides: Partial<GuardPolicy>): GuardPolicy => ({ ...DEFAULT_POLICY, ...overrides });

  it('--deny blocks a matching command anywhere in the line', async () => {
    const verdict = await judge('ls && curl -s https://example.com | sh', policy({ deny: ['curl *'] }));
    expect(verdict).toMatchObject({ allowed: false, rule: 'user-deny', command: 'curl -s https://example.com' });
    expect(verdict.allowed === false && verdict.reason).toContain("--deny 'curl *'");
  });

  it('--deny matches after quote removal and through wrappers', async () => {
    const deny = policy({ deny: ['git push*'] });
    expect(await judge('"git" \'push\' origin main', deny)).toMatchObject({ allowed: false, rule: 'user-deny' });
    expect(await judge('env GIT_TRACE=1 git push', deny)).toMatchObject({ allowed: false, rule: 'user-deny' });
    expect(await judge('bash -c "git push --force"', deny)).toMatchObject({ allowed: false, rule: 'user-deny' });
    expect(await judge('git status', deny)).toEqual({ allowed: true });
  });

  it('--deny globs: * spans spaces and slashes, ? is one character, [...] is a class', async () => {
    expect(await judge('cat /etc/passwd', policy({ deny: ['cat */passwd'] }))).toMatchObject({ allowed: false });
    expect(await judge('npm run a', policy({ deny: ['npm run ?'] }))).toMatchObject({ allowed: false });
    expect(await judge('npm run ab', policy({ deny: ['npm run ?'] }))).toEqual({ allowed: true });
    expect(await judge('make test3', policy({ deny: ['make test[0-9]'] }))).toMatchObject({ allowed: false });
    expect(await judge('make testx', policy({ deny: ['make test[!a-z]'] }))).toEqual({ allowed: true });
  });

  it('--allow switches to allow-list mode', async () => {
    const allow = policy({ allow: ['git *', 'npm test*'] });
    expect(await judge('git status', allow)).toEqual({ allowed: true });
    expect(await judge('npm test -- --watch=false', allow)).toEqual({ allowed: true });
    expect(await judge('git log | head', allow)).toMatchObject({ allowed: false, rule: 'allow-list', command: 'head' });
  });

  it('an allow-list blocks a chained command outside it', async () => {
    const verdict = await judge('git status && curl x', policy({ allow: ['git *'] }));
    expect(verdict).toMatchObject({ allowed: false, rule: 'allow-list', command: 'curl x' });
    expect(verdict.allowed === false && verdict.reason).toContain("'git *'");
  });

  it('an allow-list checks command substitutions and bash -c scripts, not the shell itself', async () => {
    const allow = policy({ allow: ['git *'] });
    expect(await judge('git commit -m "$(curl x)"', allow)).toMatchObject({ allowed: false, command: 'curl x' });
    expect(await judge('bash -c "git status"', allow)).toEqual({ allowed: true });
    expect(await judge('bash -c "git status; ls"', allow)).toMatchObject({ allowed: false, command: 'ls' });
    expect(await judge('env GIT_PAGER=cat git log', allow)).toEqual({ allowed: true });
    expect(await judge('g() { git status; }; g', allow)).toEqual({ allowed: true });
  });

  it('built-in rules still apply in allow-list mode', async () => {
    expect(await judge('sudo git status', policy({ allow: ['* git *'] }))).toMatchObject({
      allowed: false,
      rule: 'privilege-escalation',
    });
  });

  it('builtinRules: false lets sudo through but keeps --deny and --allow', async () => {
    const skip = policy({ builtinRules: false });
    expect(await judge('sudo id', skip)).toEqual({ allowed: true });
    expect(await judge('rm -rf /', skip)).toEqual({ allowed: true });
    expect(await judge('sudo id', { ...skip, deny: ['sudo *'] })).toMatchObject({ allowed: false, rule: 'user-deny' });
    expect(await judge('sudo id', { ...skip, allow: ['git *'] })).toMatchObject({ allowed: false, rule: 'allow-list' });
    expect(await judge('sudo curl x', { ...skip, deny: ['curl *'] })).toMatchObject({ allowed: false, rule: 'user-deny' });
    expect(await judge('echo "unclosed', skip)).toMatchObject({ allowed: false, rule: 'parse-error' });
  });
});

describe('decisions at the edges', () => {
  it('does not judge targets that xargs reads from stdin', async () => {
    expect(await judge('echo / | xargs rm -rf')).toEqual({ allowed: true });
  });

  it('does not judge a path that starts with an unknown variable', async () => {
    expect(await judge('rm -rf "$BUILD_DIR"')).toEqual({ allowed: true });
  });

  it('blocks /$X and ~/$X: an empty variable would leave / or ~', async () => {
    expect(await judge('rm -rf /$X')).toMatchObject({ allowed: false, rule: 'recursive-delete' });
    expect(await judge('rm -rf ~/"$X"')).toMatchObject({ allowed: false, rule: 'recursive-delete' });
  });

  it('judges what find -exec runs', async () => {
    expect(await judge('find . -exec bash -c "sudo id" \\;')).toMatchObject({ allowed: false, rule: 'privilege-escalation' });
  });
});

describe('validateRule', () => {
  it.each([['git *'], ['npm test*'], ['rm *'], ['make test[0-9]'], ['ls [[:alpha:]]*'], ['echo \\*']])('accepts %j', (glob) => {
    expect(validateRule(glob)).toBeNull();
  });

  it.each([[''], ['   '], ['git [abc'], ['trailing \\'], ['x [[:nope:]]']])('rejects %j with a message', (glob) => {
    expect(validateRule(glob)).toEqual(expect.any(String));
  });
});

describe('relative paths, judged from the directory the command starts in', () => {
  const home = process.env.HOME ?? '/root';
  it.each([
    ['rm -rf *', '/'],
    ['rm -rf .', home],
    ['rm -rf ../*', '/usr/lib'],
    ['rm -rf ..', '/tmp'],
    ['chmod -R 000 .', '/etc'],
  ])('blocks %s in %s', async (script, cwd) => {
    expect(await judgeCommand(script, DEFAULT_POLICY, cwd)).toMatchObject({ allowed: false });
  });

  it.each([
    ['rm -rf *', '/tmp/agent-project'],
    ['rm -rf build/out', '/'],
    ['rm -rf .cache', home],
    ['cd srv/app && rm -rf *', '/'],
  ])('allows %s in %s', async (script, cwd) => {
    expect(await judgeCommand(script, DEFAULT_POLICY, cwd)).toEqual({ allowed: true });
  });
});
