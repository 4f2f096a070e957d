import { resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { UsageError } from '../outcome.js';
import { fileProblem } from '../file-problem.js';

/** How long piped stdin may stay silent, when prompt words are given, before the run goes on without it. */
const STDIN_GRACE_MS = 3_000;

interface PromptSources {
  words: string[];
  promptFile: string | undefined;
  readStdin: boolean;
  stdin: Readable & { isTTY?: boolean };
  /** stdin is a device (`< /dev/null`): nothing was meant to be piped, so an empty one goes unremarked. */
  stdinIsDevice: boolean;
  warn: (message: string) => void;
}

/** The first user message's text: the prompt, preceded by piped stdin when there was some. */
export async function resolvePrompt(sources: PromptSources): Promise<string> {
  const { words, promptFile, stdin } = sources;
  const stdinUsable = sources.readStdin && !stdin.isTTY;
  if (promptFile !== undefined && words.length > 0) {
    throw new UsageError('Give the prompt either as words or with --prompt-file, not both.');
  }

  if (promptFile === '-') {
    if (!stdinUsable)
      throw new UsageError('--prompt-file - reads the prompt from stdin, but stdin is a terminal or disabled.');
    return requireText(await readAll(stdin), 'The prompt read from stdin is empty.');
  }
  if (promptFile !== undefined) {
    const path = resolve(promptFile);
    let text: string;
    try {
      const { readFile } = await import('node:fs/promises');
      text = await readFile(path, 'utf8');
    } catch (error) {
      throw new UsageError(`Cannot read prompt file ${path}: ${fileProblem(error)}.`);
    }
    const prompt = requireText(text, `Prompt file ${path} is empty.`);
    return stdinUsable ? withPipedContext(await pipedContext(sources), prompt) : prompt;
  }
  if (words.length > 0) {
    const prompt = requireText(words.join(' '), 'The prompt is empty.');
    return stdinUsable ? withPipedContext(await pipedContext(sources), prompt) : prompt;
  }
  if (!stdinUsable) {
    throw new UsageError(
      'No prompt: give it as words (agent "fix the build"), pipe it on stdin, or use --prompt-file.',
    );
  }
  return requireText(await readAll(stdin), 'No prompt: stdin was empty. Give the prompt as words or pipe some text.');
}

/**
 * Piped context, with a warning when the pipe was empty: `git diff main | agent review` with a wrong base branch
 * must not be taken for a review of nothing to worry about.
 */
async function pipedContext(sources: PromptSources): Promise<string | undefined> {
  const context = await readPipedContext(sources.stdin, sources.warn);
  if (context !== undefined && context.trim() === '' && !sources.stdinIsDevice) {
    sources.warn('stdin was empty, so the prompt goes without piped input (use --no-stdin when nothing is piped).');
  }
  return context;
}

function requireText(text: string, message: string): string {
  if (text.trim() === '') throw new UsageError(message);
  return text;
}

function withPipedContext(context: string | undefined, prompt: string): string {
  if (context === undefined || context.trim() === '') return prompt;
  const longestRun = Math.max(2, ...[...context.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = '`'.repeat(longestRun + 1);
  const body = context.endsWith('\n') ? context : `${context}\n`;
  return `Piped input (stdin):\n${fence}\n${body}${fence}\n\n${prompt}`;
}

function readAll(stream: Readable): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.once('end', () => resolvePromise(Buffer.concat(chunks).toString('utf8')));
    stream.once('error', reject);
  });
}

/**
 * Piped context beside prompt words: wait up to STDIN_GRACE_MS for the first byte or EOF.
 * A pipe nobody writes to (a CI runner's open stdin, say) must not hang the run.
 */
function readPipedContext(stream: Readable, warn: (message: string) => void): Promise<string | undefined> {
  return new Promise((resolvePromise, reject) => {
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      stream.removeAllListeners('data');
      stream.pause();
      stream.destroy();
      warn(
        `stdin gave nothing within ${STDIN_GRACE_MS / 1000} s; going on without it (use --no-stdin to skip this wait).`,
      );
      resolvePromise(undefined);
    }, STDIN_GRACE_MS);
    stream.on('data', (chunk: Buffer) => {
      clearTimeout(timer);
      chunks.push(chunk);
    });
    stream.once('end', () => {
      clearTimeout(timer);
      resolvePromise(Buffer.concat(chunks).toString('utf8'));
    });
    stream.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}
