/**
 * The `ork` command from source, for the chaos scenarios that need a real operator process
 * (`spawnOperator` runs this file with `--conditions=@orkestra/source --import tsx`, so no build
 * is needed). Same as `apps/operator/bin/ork.mjs`.
 */
import { main } from '@orkestra/operator';

process.exitCode = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
});
