/**
 * The vitest globalSetup of every integration project (see vitest.shared.ts): it starts ONE
 * control plane per test run, shared by all projects, and passes its connection to test files
 * with `project.provide('orkestraTestenv', …)` and the `ORKESTRA_TESTENV_KUBECONFIG` and
 * `KUBECONFIG` environment variables.
 *
 * Several projects run this setup in the same main process, so the state is reference-counted
 * on `globalThis`: the first setup starts the control plane, the last teardown stops it.
 * `ORKESTRA_TESTENV_CONTROL_PLANE=off` disables it. A missing binary is a one-line skip reason
 * locally and an error under `CI=true`.
 */
import type { TestProject } from 'vitest/node';
import { startControlPlane } from './control-plane.js';
import type { ControlPlane } from './control-plane.js';
import { isCi } from './is-ci.js';
import type { ProvidedControlPlane } from './provided-control-plane.js';
import { isTestenvError, TestenvErrorCode } from './testenv-error.js';

interface SharedControlPlane {
  refs: number;
  readonly ready: Promise<{ readonly provided: ProvidedControlPlane; readonly plane?: ControlPlane }>;
}

const sharedKey = Symbol.for('@orkestra/testenv.global-setup');
type Holder = typeof globalThis & { [sharedKey]?: SharedControlPlane };

async function startShared(): Promise<{
  readonly provided: ProvidedControlPlane;
  readonly plane?: ControlPlane;
}> {
  if (process.env['ORKESTRA_TESTENV_CONTROL_PLANE'] === 'off') {
    return {
      provided: { available: false, reason: 'control plane disabled (ORKESTRA_TESTENV_CONTROL_PLANE=off)' },
    };
  }
  try {
    const plane = await startControlPlane();
    process.env['ORKESTRA_TESTENV_KUBECONFIG'] = plane.kubeconfigPath;
    // Code under test that loads the default kubeconfig must reach this cluster, never a real one.
    process.env['KUBECONFIG'] = plane.kubeconfigPath;
    const t = plane.timings;
    const total = (t.certificatesMs + t.etcdMs + t.apiserverMs + t.controllerManagerMs) / 1000;
    console.info(
      `[testenv] control plane ready at ${plane.server} in ${total.toFixed(1)} s (dir ${plane.dir})`,
    );
    return { provided: { available: true, connection: plane.connection }, plane };
  } catch (error) {
    if (isTestenvError(error, TestenvErrorCode.BinaryNotFound) && !isCi()) {
      console.warn(`[testenv] ${error.message}; suites that need the control plane are skipped`);
      return { provided: { available: false, reason: error.message } };
    }
    throw error;
  }
}

/** setup starts (or joins) the shared control plane and returns the matching teardown. */
export async function setup(project: TestProject): Promise<() => Promise<void>> {
  const holder = globalThis as Holder;
  let shared = holder[sharedKey];
  if (shared == null) {
    shared = { refs: 0, ready: startShared() };
    holder[sharedKey] = shared;
  }
  shared.refs += 1;
  const current = shared;
  let released = false;
  const release = async (): Promise<void> => {
    if (released) return;
    released = true;
    current.refs -= 1;
    if (current.refs > 0) return;
    if (holder[sharedKey] === current) delete holder[sharedKey];
    const { plane } = await current.ready.catch(() => ({ plane: undefined }));
    await plane?.stop();
  };
  try {
    const { provided } = await current.ready;
    project.provide('orkestraTestenv', provided);
  } catch (error) {
    await release();
    throw error;
  }
  return release;
}
