import { afterAll } from 'vitest';
import { removeTestStateHome } from './state-home.js';

afterAll(removeTestStateHome);
