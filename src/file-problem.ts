// A failed file operation said in plain words, for messages that tell the user what to fix.

const PLAIN: Record<string, string> = {
  ENOENT: 'no such file',
  EISDIR: 'it is a directory',
  ENOTDIR: 'a part of the path is not a directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on the device',
  ELOOP: 'it is a symbolic link',
};

export function fileProblem(error: unknown): string {
  const code = (error as NodeJS.ErrnoException)?.code;
  return (code && PLAIN[code]) ?? (error as Error)?.message ?? String(error);
}
