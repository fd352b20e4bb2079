import { describe, expect, it } from 'vitest';
import { expandAddressEnv, splitEnvOrigin } from './env-address.js';

describe('$NAME in a Katalog-written address (ADR 0098)', () => {
  const env = { PEER_URL: 'loader.peer.example:8082', PORT: '8082', EMPTY: '' };

  it('expands $NAME and ${NAME} in the scheme and host from the operator environment', () => {
    expect(expandAddressEnv('http://$PEER_URL/katalog/loader', env, 'p')).toBe(
      'http://loader.peer.example:8082/katalog/loader',
    );
    expect(expandAddressEnv('https://peer:${PORT}', env, 'p')).toBe('https://peer:8082');
  });

  it('leaves the path, query and any address without a variable as written', () => {
    expect(expandAddressEnv('http://peer:8082/a/$PEER_URL?x=$PORT', env, 'p')).toBe(
      'http://peer:8082/a/$PEER_URL?x=$PORT',
    );
    expect(expandAddressEnv('http://$PEER_URL/a/$PORT', env, 'p')).toBe(
      'http://loader.peer.example:8082/a/$PORT',
    );
  });

  it('never expands inside a template (what a CR renders is not the operator’s to name)', () => {
    expect(splitEnvOrigin('http://{{ .spec.host }}$PEER_URL/x')).toBeUndefined();
    expect(splitEnvOrigin('http://$PEER_URL/{{ .metadata.name }}')).toEqual({
      origin: 'http://$PEER_URL',
      rest: '/{{ .metadata.name }}',
    });
  });

  it('refuses an unset or empty variable, naming the field and the variable, not a value', () => {
    expect(() => expandAddressEnv('http://$NOPE/x', env, 'autoscale.sources[0].endpoint')).toThrow(
      'autoscale.sources[0].endpoint: environment variable NOPE is not set (the address names $NOPE)',
    );
    expect(() => expandAddressEnv('http://${EMPTY}', env, 'e')).toThrow(/EMPTY is not set/);
  });
});
