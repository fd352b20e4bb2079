import { readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';
import { packageProjects } from './vitest.shared.js';

const roots = ['packages', 'providers', 'apps', 'tools', 'examples'];
const projects = roots.flatMap((root) =>
  existsSync(join(import.meta.dirname, root))
    ? readdirSync(join(import.meta.dirname, root))
        .map((d) => join(import.meta.dirname, root, d))
        .filter((d) => existsSync(join(d, 'package.json')) && existsSync(join(d, 'vitest.config.ts')))
        .flatMap((d) => packageProjects(d, JSON.parse(readFileSync(join(d, 'package.json'), 'utf8')).name))
    : [],
);

export default defineConfig({ test: { projects } });
