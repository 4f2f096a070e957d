// Runs in every test file (vitest setupFiles): the directories tempDir() made go once the file is done.
import { afterAll } from 'vitest';
import { removeTempDirs } from './run-agent.js';

afterAll(removeTempDirs);
