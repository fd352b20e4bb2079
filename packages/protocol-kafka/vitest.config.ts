import { defineConfig } from 'vitest/config';
import { packageProjects } from '../../vitest.shared.js';

export default defineConfig({
  test: { projects: packageProjects(import.meta.dirname, '@orkestra/protocol-kafka') },
});
