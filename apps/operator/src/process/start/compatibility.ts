/**
 * Compatibility, a start-up check (docs/reference/katalog.md §2.5, ADR 0063): a Katalog's
 * `lifecycle.compatibility` names the Kubernetes and Orkestra versions it was verified against.
 * The operator compares `orkestra` with its own version and `kubernetes` with the API server's
 * (`GET /version`, over the counted transport) before anything is installed or reconciled, and
 * refuses to start — or refuses a reload — outside the range, as upstream does at apply time.
 */
import { versionInRange } from '@orkestra/types';
import type { Katalog } from '@orkestra/types';
import type { ApiTransport } from '../api-transport.js';
import type { OperatorLogger } from '../logger.js';
import { OperatorStartError } from './errors.js';

/** UNRELEASED_VERSION is the version of an operator built from the workspace, not a release. */
const UNRELEASED_VERSION = '0.0.0';

/** CompatibilityOptions are the versions compared with the Katalog's ranges. */
export interface CompatibilityOptions {
  /** The operator's own version (`operatorVersion()`); `0.0.0` is an unreleased build and is not checked. */
  readonly operatorVersion: string;
  /** Reads the API server's version (`gitVersion`, e.g. `v1.30.2`); called only when `kubernetes` is declared. */
  readonly serverVersion: () => Promise<string>;
  readonly logger: OperatorLogger;
}

/**
 * checkCompatibility throws OperatorStartError when the operator or the API server is outside the
 * Katalog's `lifecycle.compatibility`; it logs the versions it checked.
 */
export async function checkCompatibility(katalog: Katalog, o: CompatibilityOptions): Promise<void> {
  const compatibility = katalog.lifecycle?.compatibility;
  if (compatibility == null) return;
  const problems: string[] = [];
  if (compatibility.orkestra != null) {
    if (o.operatorVersion === UNRELEASED_VERSION)
      o.logger.warn(
        { katalogPath: 'lifecycle.compatibility.orkestra', range: compatibility.orkestra },
        `lifecycle.compatibility.orkestra not checked: this operator is an unreleased build (${UNRELEASED_VERSION})`,
      );
    else if (!versionInRange(o.operatorVersion, compatibility.orkestra))
      problems.push(
        `lifecycle.compatibility.orkestra: this operator is ${o.operatorVersion}; the Katalog requires ${compatibility.orkestra}`,
      );
  }
  if (compatibility.kubernetes != null) {
    const server = await o.serverVersion();
    if (!versionInRange(server, compatibility.kubernetes))
      problems.push(
        `lifecycle.compatibility.kubernetes: the API server is ${server}; the Katalog requires ${compatibility.kubernetes}`,
      );
    else
      o.logger.info({ server, range: compatibility.kubernetes }, 'lifecycle.compatibility.kubernetes holds');
  }
  if (problems.length > 0)
    throw new OperatorStartError(
      `the Katalog ${katalog.metadata.name} is not verified for this ${problems.length === 1 && problems[0]!.includes('.orkestra') ? 'operator' : 'cluster'}`,
      problems,
    );
}

/** apiServerVersion reads `GET /version` over the operator's counted transport. */
export async function apiServerVersion(api: ApiTransport): Promise<string> {
  const body = (await api.listWatch.list('/version', {})) as unknown as { gitVersion?: unknown };
  if (typeof body.gitVersion !== 'string')
    throw new OperatorStartError('the API server answered /version without gitVersion');
  return body.gitVersion;
}
