/**
 * Credentials in URLs (`https://user:token@host/…`, `?access_token=…`) are replaced before a text
 * reaches a status condition, an Event, a hook result or a log line: hooks echo the URL they
 * called in their errors, and a Katalog may template a token into a git or HTTP URL.
 */

/** REDACTED_CREDENTIALS replaces the user-info or the secret query value of a URL. */
const REDACTED_CREDENTIALS = '[REDACTED]';

// scheme://userinfo@ — userinfo is everything up to the first @ before the host (no /, ?, # or space).
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"'<>]+@/gi;
// ?token=… / &password=… / X-Amz-Signature=…: the value up to the next & # or space.
const SECRET_QUERY =
  /([?&](?:access_token|refresh_token|id_token|token|api[_-]?key|apikey|key|password|passwd|secret|client_secret|sig|signature|x-amz-signature|x-amz-credential|x-amz-security-token|x-goog-signature|x-goog-credential)=)[^&#\s"'<>]+/gi;

/**
 * redactUrlCredentials replaces, in any text, the user-info of every `scheme://user:pass@host` URL
 * and the values of credential-like query parameters with `[REDACTED]`. Text without URLs is
 * returned unchanged.
 *
 * @example
 * redactUrlCredentials('git clone https://bot:ghp_x@example.com/r.git failed');
 * // 'git clone https://[REDACTED]@example.com/r.git failed'
 */
export function redactUrlCredentials(text: string): string {
  if (!text.includes('://') && !text.includes('=')) return text;
  return text
    .replace(USERINFO, `$1${REDACTED_CREDENTIALS}@`)
    .replace(SECRET_QUERY, `$1${REDACTED_CREDENTIALS}`);
}
