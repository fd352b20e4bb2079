#!/usr/bin/env node
// The `ork` command: runs the built CLI (dist/cli.js; build with `pnpm exec nx run @orkestra/operator:build`).
import { main } from '../dist/cli.js';

process.exitCode = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
});
