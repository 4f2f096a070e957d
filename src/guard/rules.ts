// The guard's built-in deny rules, as data. guard-match.ts interprets the matchers;
// adding a rule here needs no new code unless it needs a new kind of matcher.

/** Classes of dangerous targets, defined by the lists below and by targets.ts. */
export type TargetClass = 'critical-path' | 'block-device' | 'empty-variable-root';

export interface FlagSpec {
  /** Short option letters, found in any cluster: 'rR' matches -r, -rf, -fR, -Rv. */
  readonly short: string;
  readonly long: readonly string[];
}

export type Matcher =
  | {
      readonly kind: 'command';
      /** Command names after path stripping; a trailing '*' matches a prefix (mkfs*). */
      readonly names: readonly string[];
      /** Some operand must be one of these words (systemctl reboot, init 0). */
      readonly anyOperand?: readonly string[];
      /** One of these options must be present. */
      readonly flags?: FlagSpec;
      /** Some operand must be a target of this class. */
      readonly operands?: TargetClass;
      /** Some operand `key=value` must have a value of this class (dd of=/dev/sda). */
      readonly keyValue?: { readonly key: string; readonly target: TargetClass };
    }
  | {
      readonly kind: 'find';
      /** A starting point of this class ... */
      readonly roots: TargetClass;
      /** ... with one of these actions ... */
      readonly actions: readonly string[];
      /** ... or -exec/-execdir/-ok/-okdir running one of these commands. */
      readonly execCommands: readonly string[];
    }
  | { readonly kind: 'redirect'; readonly target: TargetClass }
  /** A function that calls itself in a pipeline, in the background or in a substitution. */
  | { readonly kind: 'self-spawning-function' };

export interface GuardRule {
  readonly id: string;
  /** What the rule blocks, for people reading the rule list. */
  readonly description: string;
  /** Told to the model after the blocked command: why, and what to do instead. */
  readonly advice: string;
  readonly matchers: readonly Matcher[];
}

/** Paths that start with one of these are disks, partitions or raw kernel interfaces. */
export const BLOCK_DEVICE_PREFIXES: readonly string[] = [
  '/dev/sd',
  '/dev/hd',
  '/dev/vd',
  '/dev/xvd',
  '/dev/nvme',
  '/dev/mmcblk',
  '/dev/disk',
  '/dev/rdisk',
  '/dev/mapper/',
  '/dev/loop',
  '/dev/md',
  '/dev/dm-',
  '/dev/nbd',
  '/dev/sr',
  '/dev/zram',
  '/dev/mem',
  '/dev/kmem',
  '/dev/port',
  '/proc/sysrq-trigger',
];

export const BUILTIN_RULES: readonly GuardRule[] = [
  {
    id: 'privilege-escalation',
    description: 'running commands as another user: sudo, su, doas, pkexec, runuser',
    advice: 'commands run unprivileged; do the work without sudo or ask the user.',
    matchers: [{ kind: 'command', names: ['sudo', 'sudoedit', 'su', 'doas', 'pkexec', 'runuser'] }],
  },
  {
    id: 'power-state',
    description: 'shutting down, rebooting, halting or suspending the machine',
    advice: "changing the machine's power or run state is never part of the job; leave it to the user.",
    matchers: [
      { kind: 'command', names: ['shutdown', 'reboot', 'halt', 'poweroff'] },
      {
        kind: 'command',
        names: ['systemctl', 'loginctl'],
        anyOperand: [
          'poweroff',
          'reboot',
          'halt',
          'suspend',
          'hibernate',
          'hybrid-sleep',
          'suspend-then-hibernate',
          'kexec',
          'soft-reboot',
          'rescue',
          'emergency',
        ],
      },
      { kind: 'command', names: ['init', 'telinit'], anyOperand: ['0', '1', '6', 's', 'S'] },
    ],
  },
  {
    id: 'unset-variable',
    description:
      'rm -r, chmod/chown/chgrp -R or find -delete on a target that starts with an unset or empty variable ("$BUILD_DIR"/*)',
    advice:
      'the target starts with a variable that is unset or empty here, so the path would start at /. Each command runs in a new shell: variables set by earlier commands are gone. Set the variable in this same command, or write ${VAR:?} so that bash stops when it is empty.',
    matchers: [
      {
        kind: 'command',
        names: ['rm'],
        flags: { short: 'rR', long: ['--recursive'] },
        operands: 'empty-variable-root',
      },
      {
        kind: 'command',
        names: ['chmod', 'chown', 'chgrp'],
        flags: { short: 'R', long: ['--recursive'] },
        operands: 'empty-variable-root',
      },
      {
        kind: 'find',
        roots: 'empty-variable-root',
        actions: ['-delete'],
        execCommands: ['rm', 'rmdir', 'unlink', 'shred'],
      },
    ],
  },
  {
    id: 'recursive-delete',
    description: 'rm -r aimed at /, /*, ~, $HOME or a top-level system directory',
    advice:
      'that would delete the system or the home directory; delete only paths inside the project or /tmp, named explicitly.',
    matchers: [
      { kind: 'command', names: ['rm'], flags: { short: 'rR', long: ['--recursive'] }, operands: 'critical-path' },
    ],
  },
  {
    id: 'recursive-permissions',
    description: 'chmod/chown/chgrp -R aimed at /, ~, $HOME or a top-level system directory',
    advice:
      'that would change ownership or permissions of the whole system or home directory; change only project paths, named explicitly.',
    matchers: [
      {
        kind: 'command',
        names: ['chmod', 'chown', 'chgrp'],
        flags: { short: 'R', long: ['--recursive'] },
        operands: 'critical-path',
      },
    ],
  },
  {
    id: 'find-delete',
    description: 'find rooted at /, ~ or a system directory with -delete or -exec rm',
    advice: 'that could delete files across the whole system; search and delete only inside the project.',
    matchers: [
      { kind: 'find', roots: 'critical-path', actions: ['-delete'], execCommands: ['rm', 'rmdir', 'unlink', 'shred'] },
    ],
  },
  {
    id: 'make-filesystem',
    description: 'creating or wiping filesystems: mkfs*, mke2fs, mkswap, wipefs',
    advice: 'formatting or wiping a disk is never part of the job; leave it to the user.',
    matchers: [{ kind: 'command', names: ['mkfs*', 'mke2fs', 'mkswap', 'mkdosfs', 'mkntfs', 'mkexfatfs', 'wipefs'] }],
  },
  {
    id: 'device-write',
    description: 'writing to block devices: dd of=/dev/sd*, > /dev/nvme*, tee or shred on a disk',
    advice: 'writing to a disk device destroys its data; write to a regular file instead.',
    matchers: [
      { kind: 'command', names: ['dd'], keyValue: { key: 'of', target: 'block-device' } },
      { kind: 'command', names: ['shred', 'tee'], operands: 'block-device' },
      { kind: 'redirect', target: 'block-device' },
    ],
  },
  {
    id: 'fork-bomb',
    description: 'a function that spawns copies of itself (:(){ :|:& };:)',
    advice: 'that is a fork bomb; it would exhaust the machine. Write a terminating loop instead.',
    matchers: [{ kind: 'self-spawning-function' }],
  },
];
