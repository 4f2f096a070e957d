import { afterEach } from 'vitest';
import { startServer, type ServerOptions, type TestServer, type Turn } from './server.js';

/** A fresh scripted server per test, closed after it: `const serve = useServer();` then `const s = await serve([...])`. */
export function useServer(): (script: Turn[], options?: ServerOptions) => Promise<TestServer> {
  let current: TestServer | undefined;
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return async (script, options) => {
    current = await startServer(script, options);
    return current;
  };
}
