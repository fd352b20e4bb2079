/** ConnectionString is a parsed `mongodb://` URI; only what the provider needs to rewrite it. */
export interface ConnectionString {
  readonly scheme: 'mongodb' | 'mongodb+srv';
  /** `host1:27017,host2:27017`. */
  readonly hosts: string;
  readonly username?: string;
  readonly password?: string;
  /** The path database, `''` when absent. */
  readonly database: string;
  /** Query options, in order. */
  readonly options: readonly (readonly [string, string])[];
}

const pattern = /^(mongodb(?:\+srv)?):\/\/(?:([^@/?]*)@)?([^/?]+)(?:\/([^?]*))?(?:\?(.*))?$/;

/** parseConnectionString splits a MongoDB URI; undefined when it is not one. */
export function parseConnectionString(uri: string): ConnectionString | undefined {
  const match = pattern.exec(uri);
  if (match == null) return undefined;
  const [, scheme, userinfo, hosts, database, query] = match;
  const colon = userinfo?.indexOf(':') ?? -1;
  const username =
    userinfo == null ? undefined : decodeURIComponent(colon < 0 ? userinfo : userinfo.slice(0, colon));
  const password = userinfo == null || colon < 0 ? undefined : decodeURIComponent(userinfo.slice(colon + 1));
  const options = (query ?? '')
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair): [string, string] => {
      const eq = pair.indexOf('=');
      return eq < 0 ? [pair, ''] : [pair.slice(0, eq), pair.slice(eq + 1)];
    });
  return {
    scheme: scheme as 'mongodb' | 'mongodb+srv',
    hosts: hosts ?? '',
    ...(username == null || username === '' ? {} : { username }),
    ...(password == null ? {} : { password }),
    database: decodeURIComponent(database ?? ''),
    options,
  };
}

/**
 * PUBLIC_OPTIONS are the URI options an application's connection string keeps (lower case): how to
 * reach and talk to the deployment, never how the admin authenticates. Everything else of the admin
 * URI (`authMechanismProperties` with session tokens, `tlsCertificateKeyFilePassword`, key and
 * certificate paths, `authSource`, …) stays out of CR status.
 */
const PUBLIC_OPTIONS: ReadonlySet<string> = new Set([
  'replicaset',
  'tls',
  'ssl',
  'directconnection',
  'loadbalanced',
  'readpreference',
  'readpreferencetags',
  'maxstalenessseconds',
  'readconcernlevel',
  'w',
  'wtimeoutms',
  'journal',
  'retrywrites',
  'retryreads',
  'appname',
  'compressors',
  'zlibcompressionlevel',
  'connecttimeoutms',
  'sockettimeoutms',
  'serverselectiontimeoutms',
  'heartbeatfrequencyms',
  'localthresholdms',
  'maxpoolsize',
  'minpoolsize',
  'maxidletimems',
  'waitqueuetimeoutms',
  'srvmaxhosts',
  'srvservicename',
]);

/**
 * publicConnectionString writes the connection string an application should use for
 * `database` (and `username`): the same hosts, never a password, and only the options of
 * {@link PUBLIC_OPTIONS} (no `authSource`: it defaults to the path database).
 */
export function publicConnectionString(
  base: ConnectionString,
  target: { readonly database: string; readonly username?: string },
): string {
  const user = target.username == null ? '' : `${encodeURIComponent(target.username)}@`;
  const options = base.options.filter(([key]) => PUBLIC_OPTIONS.has(key.toLowerCase()));
  const query = options.length === 0 ? '' : `?${options.map(([k, v]) => `${k}=${v}`).join('&')}`;
  return `${base.scheme}://${user}${base.hosts}/${encodeURIComponent(target.database)}${query}`;
}

/** withoutCredentials is the URI with its user info removed (for a client that authenticates with options). */
export function withoutCredentials(base: ConnectionString): string {
  const query = base.options.length === 0 ? '' : `?${base.options.map(([k, v]) => `${k}=${v}`).join('&')}`;
  return `${base.scheme}://${base.hosts}/${encodeURIComponent(base.database)}${query}`;
}
