/**
 * Repository host allow-lists (docs/reference/katalog.md §16.1): `spec.allowedRepoHosts` names the
 * hosts a git hook may clone from, each exactly (`github.com`) or with its subdomains
 * (`*.example.com`, not `example.com` itself). Names compare without case.
 */

/** REPO_HOST_PATTERN is what an `allowedRepoHosts` item may be: a host name, optionally `*.`-prefixed. */
export const REPO_HOST_PATTERN =
  /^(\*\.)?[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/;

/**
 * repoHostOf returns the host of a git repository URL — `scheme://[user@]host[:port]/…` or the
 * scp-like `[user@]host:path` — or undefined for a local path or `file://` URL.
 *
 * @example
 * repoHostOf('git@github.com:org/repo.git'); // 'github.com'
 */
export function repoHostOf(repo: string): string | undefined {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(repo);
  if (scheme != null) {
    if (scheme[1]?.toLowerCase() === 'file') return undefined;
    const authority = repo.slice(scheme[0].length).split(/[/?#]/, 1)[0] ?? '';
    const hostPort = authority.slice(authority.lastIndexOf('@') + 1);
    const host = hostPort.startsWith('[')
      ? hostPort.slice(0, hostPort.indexOf(']') + 1)
      : hostPort.replace(/:\d*$/, '');
    return host === '' ? undefined : host;
  }
  const scp = /^(?:[^@/:]+@)?(\[[^\]]+\]|[^/:]+):/.exec(repo);
  return scp?.[1] != null && !/^[a-z]$/i.test(scp[1]) ? scp[1] : undefined;
}

/**
 * repoHostAllowed says whether `host` is one of `allowed` (exactly, or a subdomain of a `*.` item).
 *
 * @example
 * repoHostAllowed('git.example.com', ['*.example.com']); // true
 */
export function repoHostAllowed(host: string, allowed: readonly string[]): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return allowed.some((item) => {
    const pattern = item.toLowerCase();
    return pattern.startsWith('*.')
      ? name.endsWith(pattern.slice(1)) && name.length > pattern.length - 1
      : name === pattern;
  });
}
