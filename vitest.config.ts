import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    reporters: ['default', './test/support/summary-reporter.ts'],
    // Temporary directories: the suite's own root, checked empty at the end; tempDir()'s removed after each file.
    globalSetup: ['./test/support/temp-root.ts'],
    setupFiles: ['./test/support/remove-temp-dirs.ts'],
  },
});
