import { beforeAll, expect, it } from 'vitest';
import { buildOrk, spawnOrk } from './ork-process.js';

// `ork demo` end to end through the real binary. It starts a control plane of its own (besides
// the shared one of the integration run) and must exit 0 after showing every step.

beforeAll(() => {
  buildOrk();
}, 600_000);

it('runs to completion: Ready, children, drift repair, cleanup, exit 0', async () => {
  let stdout = '';
  const demo = spawnOrk(['demo']);
  demo.child.stdout?.on('data', (chunk: string) => {
    stdout += chunk;
  });
  const code = await demo.exited;
  expect({ code, stderr: demo.stderr() }).toEqual({ code: 0, stderr: '' });
  expect(stdout).toContain('Control plane ready at https://127.0.0.1:');
  expect(stdout).toContain('created Website default/hello from examples/website/crs');
  expect(stdout).toContain('created GlobalApp shop/shop from examples/multi-region/crs');
  expect(stdout).toMatch(/Website default\/hello: waiting for Ready\n {2}Ready=True \(ReconcileSucceeded\)/);
  // kwok runs the Pods (docs/testenv.md §5); Ready waits for them, and the status fields follow.
  expect(stdout).toMatch(/Deployment +hello-web +2\/2 ready/);
  expect(stdout).toMatch(/Deployment +shop-eu-west-1 +3\/3 ready/);
  expect(stdout).toMatch(/phase +Running/);
  expect(stdout).toMatch(/url +http:\/\/hello\.default\.svc/);
  expect(stdout).toMatch(
    /restored by the operator: data\.index\.html = "<h1>Hello from Orkestra<\/h1>" again/,
  );
  expect(stdout).toContain('deleted ConfigMap default/hello-content');
  expect(stdout).toContain('deleted Deployment default/hello-web');
  expect(stdout).toMatch(/Demo complete in \d+ s\.\n$/);
}, 300_000);
