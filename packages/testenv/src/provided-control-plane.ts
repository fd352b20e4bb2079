import type { ControlPlaneConnection } from './control-plane-client.js';

/**
 * ProvidedControlPlane is what the globalSetup hands to test files under the vitest `provide`
 * key `orkestraTestenv`: the connection, or the one-line reason there is none.
 */
export type ProvidedControlPlane =
  | { readonly available: true; readonly connection: ControlPlaneConnection }
  | { readonly available: false; readonly reason: string };

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared control plane of this test run (see @orkestra/testenv's global setup). */
    orkestraTestenv: ProvidedControlPlane;
  }
}
