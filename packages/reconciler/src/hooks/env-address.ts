/**
 * `$NAME` in an address the Katalog writes (ADR 0098, docs/reference/katalog.md §15.2 and §18.2):
 * upstream's cross-cluster form `http://$PEER_URL/katalog/…` names the peer by an environment
 * variable of the operator. One function for every address that takes it — `cross[].endpoint` and
 * `url`, `autoscale.sources[].endpoint` and `url` — and only over the Katalog's own text: the scheme
 * and host, before any path, and never a template, so no value rendered from a CR can name a
 * variable of the operator.
 */

/** URL_ORIGIN is the scheme and authority of a URL as written. */
const URL_ORIGIN = /^([a-z][a-z0-9+.-]*):\/\/([^/?#]*)/i;

/** ENV_REFERENCE is `$NAME` or `${NAME}`: a variable of the operator's environment. */
const ENV_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g;

/** OperatorEnv is the operator's environment (`process.env` in the runtime). */
type OperatorEnv = Readonly<Record<string, string | undefined>>;

/**
 * splitEnvOrigin splits an address as the Katalog writes it into its origin (scheme and host) and
 * the rest, when the origin names an environment variable and holds no template; undefined when
 * nothing in it is expanded (the address is used, or rendered, as written).
 *
 * @example
 * splitEnvOrigin('http://$PEER/katalog/{{ .metadata.name }}'); // { origin: 'http://$PEER', rest: '/katalog/…' }
 */
export function splitEnvOrigin(text: string): { readonly origin: string; readonly rest: string } | undefined {
  const origin = URL_ORIGIN.exec(text)?.[0];
  if (origin == null || origin.includes('{{') || !new RegExp(ENV_REFERENCE.source).test(origin))
    return undefined;
  return { origin, rest: text.slice(origin.length) };
}

/**
 * expandOrigin replaces each `$NAME`/`${NAME}` of an origin from `splitEnvOrigin` with the
 * operator's variable. An unset or empty variable throws, naming `path` and the variable (never
 * its value).
 */
export function expandOrigin(origin: string, env: OperatorEnv | undefined, path: string): string {
  return origin.replace(ENV_REFERENCE, (_, braced: string | undefined, bare: string | undefined) => {
    const name = braced ?? bare ?? '';
    const value = env?.[name];
    if (value == null || value === '')
      throw new Error(`${path}: environment variable ${name} is not set (the address names $${name})`);
    return value;
  });
}

/**
 * expandAddressEnv expands the environment variables of a literal address (one no template
 * renders, such as an autoscale source's): its origin from the operator's environment, the rest as
 * written. Throws like `expandOrigin`.
 *
 * @example
 * expandAddressEnv('http://$LOADER/katalog/loader', process.env, 'autoscale.sources[0].endpoint');
 */
export function expandAddressEnv(text: string, env: OperatorEnv | undefined, path: string): string {
  const split = splitEnvOrigin(text);
  return split == null ? text : expandOrigin(split.origin, env, path) + split.rest;
}
