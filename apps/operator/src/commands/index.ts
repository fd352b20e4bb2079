import type { Command } from './command.js';
import { demoCommand } from './demo.js';
import { devCommand } from './dev.js';
import { diffCommand } from './diff.js';
import { explainCommand } from './explain.js';
import { generateCommand } from './generate.js';
import { migrateCommand } from './migrate.js';
import { renderCommand } from './render.js';
import { rolloutCommand } from './rollout.js';
import { runCommand } from './run.js';
import { simulateCommand } from './simulate.js';
import { validateCommand } from './validate.js';

/**
 * commands is every `ork` sub-command, in the order `ork --help` lists them. A new command is one
 * file under `src/commands/` exporting a `Command` plus one line here; `run`, `dev`, `demo` and
 * `simulate` come with the reconcile pipeline.
 */
export const commands: readonly Command[] = [
  runCommand,
  validateCommand,
  renderCommand,
  generateCommand,
  migrateCommand,
  simulateCommand,
  diffCommand,
  explainCommand,
  rolloutCommand, // docs/reference/runtime.md §24
  devCommand,
  demoCommand,
];
