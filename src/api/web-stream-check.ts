/**
 * `value instanceof globalThis.ReadableStream`, for the SDK's request path. Node defines that global lazily, and the
 * first read of it loads Node's web streams: a few milliseconds of every start-up. A primitive or a plain object (the
 * request bodies a run sends) can never be one, so for them the global is not read; anything else is asked as before.
 */
export function isWebReadableStream(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  if (prototype === Object.prototype || prototype === null) return false;
  return Boolean(globalThis.ReadableStream) && value instanceof globalThis.ReadableStream;
}
