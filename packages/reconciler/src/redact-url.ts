/**
 * Credentials in URLs (`https://user:token@host/…`, `?access_token=…`) are replaced before a text
 * reaches a status condition, an Event, a hook result or a log line: hooks echo the URL they
 * called in their errors, and a Katalog may template a token into a git or HTTP URL.
 */

/** REDACTED_CREDENTIALS replaces the user-info or the secret query value of a URL. */
const REDACTED_CREDENTIALS = '[REDACTED]';

// A URL starts at a scheme that is not the tail of a longer word (the lookbehind keeps the scan
// linear: a run like `a-a-a-…` is tried once, not from each of its characters). Its authority runs
// to the first `/`, `?`, `#`, space or quote; like the URL parser, the user-info is everything
// before the authority's last `@`, so `user:p@ss@host` is redacted whole.
const URL_AUTHORITY = /(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*:\/\/)([^\s/?#"'<>]*)/gi;
// ?token=… / &password=… / X-Amz-Signature=… / &private_token=… / &x_api_key=…: the value up to
// the next & # or space.
const SECRET_QUERY =
  /([?&](?:access_token|refresh_token|id_token|private_token|token|auth|code|api[_-]?key|apikey|key|[a-z0-9_-]*[_-]key|password|passwd|secret|client_secret|sig|signature|x-amz-signature|x-amz-credential|x-amz-security-token|x-goog-signature|x-goog-credential)=)[^&#\s"'<>]+/gi;

/**
 * redactUrlCredentials replaces, in any text, the user-info of every `scheme://user:pass@host` URL
 * and the values of credential-like query parameters with `[REDACTED]`. Text without URLs is
 * returned unchanged. Linear in the length of the text.
 *
 * @example
 * redactUrlCredentials('git clone https://bot:ghp_x@example.com/r.git failed');
 * // 'git clone https://[REDACTED]@example.com/r.git failed'
 */
export function redactUrlCredentials(text: string): string {
  if (!text.includes('://') && !text.includes('=')) return text;
  return text
    .replace(URL_AUTHORITY, (whole, scheme: string, authority: string) => {
      const at = authority.lastIndexOf('@');
      return at < 0 ? whole : `${scheme}${REDACTED_CREDENTIALS}${authority.slice(at)}`;
    })
    .replace(SECRET_QUERY, `$1${REDACTED_CREDENTIALS}`);
}

/**
 * truncateRedacted cuts `text` to at most `max` code points with `truncate`, redacting credentials
 * on a bounded prefix first (so redaction never sees more than `max` plus a margin). A URL whose
 * authority the first cut splits before its `@` loses the whole authority, as it may be a
 * credential cut short.
 */
export function truncateRedacted(
  text: string,
  max: number,
  truncate: (text: string, max: number) => string,
): string {
  const bound = max + 512;
  if (text.length <= bound) return truncate(redactUrlCredentials(text), max);
  let head = redactUrlCredentials(text.slice(0, bound));
  const last = /(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*:\/\/)[^\s/?#"'<>@]*$/i.exec(head);
  if (last != null) head = `${head.slice(0, last.index)}${last[1] ?? ''}${REDACTED_CREDENTIALS}`;
  return truncate(head, max);
}
