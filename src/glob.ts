// Shell-style globs, for --allow / --deny rules, the guard's path checks, --pass-env and the secret names.
// Unlike picomatch or minimatch, `*` here matches any run of characters, spaces and
// slashes included: a rule is matched against a whole command line, not a path.

type CompiledGlob = { ok: true; regexp: RegExp } | { ok: false; message: string };

const POSIX_CLASSES: Readonly<Record<string, string>> = {
  alnum: 'A-Za-z0-9',
  alpha: 'A-Za-z',
  blank: ' \\t',
  digit: '0-9',
  lower: 'a-z',
  punct: '!-\\/:-@\\[-`{-~',
  space: ' \\t\\n\\r\\f\\v',
  upper: 'A-Z',
  word: 'A-Za-z0-9_',
  xdigit: '0-9A-Fa-f',
};

/** Trims a rule and collapses runs of whitespace, the way command words are joined. */
export function normalizeRule(glob: string): string {
  return glob.trim().replace(/\s+/g, ' ');
}

export function compileGlob(glob: string): CompiledGlob {
  let source = '';
  let index = 0;
  while (index < glob.length) {
    const char = glob[index] as string;
    if (char === '*') {
      source += '[\\s\\S]*';
      index += 1;
    } else if (char === '?') {
      source += '[\\s\\S]';
      index += 1;
    } else if (char === '\\') {
      const next = glob[index + 1];
      if (next === undefined) return { ok: false, message: 'ends with a lone backslash' };
      source += escapeRegExp(next);
      index += 2;
    } else if (char === '[') {
      const bracket = compileBracket(glob, index);
      if (!bracket.ok) return bracket;
      source += bracket.source;
      index = bracket.end;
    } else {
      source += escapeRegExp(char);
      index += 1;
    }
  }
  return { ok: true, regexp: new RegExp(`^${source}$`) };
}

type BracketResult = { ok: true; source: string; end: number } | { ok: false; message: string };

function compileBracket(glob: string, start: number): BracketResult {
  let index = start + 1;
  let negated = false;
  if (glob[index] === '!' || glob[index] === '^') {
    negated = true;
    index += 1;
  }
  let body = '';
  let first = true;
  while (index < glob.length) {
    const char = glob[index] as string;
    if (char === ']' && !first) {
      if (body === '') return { ok: false, message: `empty character class at position ${start + 1}` };
      return { ok: true, source: `[${negated ? '^' : ''}${body}]`, end: index + 1 };
    }
    first = false;
    if (char === '[' && glob[index + 1] === ':') {
      const close = glob.indexOf(':]', index + 2);
      const name = close === -1 ? undefined : glob.slice(index + 2, close);
      const members = name === undefined ? undefined : POSIX_CLASSES[name];
      if (members === undefined) return { ok: false, message: `unknown character class at position ${index + 1}` };
      body += members;
      index = close + 2;
      continue;
    }
    if (char === '\\') {
      const next = glob[index + 1];
      if (next === undefined) return { ok: false, message: 'ends with a lone backslash' };
      body += escapeClassChar(next);
      index += 2;
      continue;
    }
    // A '-' between two characters is a range; anywhere else it is literal.
    body += char === '-' && body !== '' && glob[index + 1] !== ']' ? '-' : escapeClassChar(char);
    index += 1;
  }
  return { ok: false, message: `unclosed '[' at position ${start + 1}` };
}

export function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}

function escapeClassChar(char: string): string {
  return /[\\\]^[-]/.test(char) ? `\\${char}` : char;
}

/** Null when the glob is a usable --allow / --deny rule, else what is wrong with it. */
export function validateRule(glob: string): string | null {
  const rule = normalizeRule(glob);
  if (rule === '') return 'a rule must not be empty';
  const compiled = compileGlob(rule);
  return compiled.ok ? null : `invalid rule '${glob}': ${compiled.message}`;
}
