import type { KindDefinition, KindRequest } from '@orkestra/provider-kit';
import { ProviderError } from '@orkestra/types';
import { publicConnectionString } from './connection-string.js';
import { UserSpec } from './mongo-specs.js';
import type { MongoState } from './mongo-state.js';

type Request = KindRequest<UserSpec, MongoState>;

/** readPassword reads the password from the declared Secret key through the KubeReader. */
async function readPassword(request: Request): Promise<string> {
  const { spec, kube, owner } = request;
  const ref = spec.passwordSecret;
  const namespace = ref.namespace ?? owner.metadata.namespace;
  if (namespace == null) {
    throw new ProviderError('passwordSecret needs a namespace when the owner is cluster-scoped', {
      code: 'PasswordSecretNamespace',
      retryable: false,
    });
  }
  const data = await kube.getSecret(namespace, ref.name);
  if (data == null)
    throw new ProviderError(`password Secret ${namespace}/${ref.name} does not exist`, {
      code: 'PasswordSecretNotFound',
      retryable: true,
    });
  const value = data[ref.key];
  if (value == null || value.length === 0) {
    throw new ProviderError(`password Secret ${namespace}/${ref.name} has no (or an empty) key ${ref.key}`, {
      code: 'PasswordSecretKeyMissing',
      retryable: true,
    });
  }
  return new TextDecoder().decode(value);
}

function roleKey(roles: readonly { role: string; db: string }[]): string {
  return JSON.stringify(roles.map((r) => `${r.db}.${r.role}`).sort());
}

/**
 * userKind is the `user` kind: creates the user with the password from its Secret and the
 * declared roles; corrects the roles when they drifted and the password when it no longer
 * authenticates (a changed Secret), checked by logging in rather than by storing any hash.
 * Outputs: `username`, `database`, and a `connectionString` with the username and no password.
 */
export const userKind: KindDefinition<typeof UserSpec, MongoState> = {
  schema: UserSpec,
  description: 'A user with roles; its password comes from a Secret and follows it.',
  outputs: ['username', 'database', 'connectionString'],
  async reconcile(request) {
    const { spec, state, signal } = request;
    const target = `${spec.username}@${spec.database}`;
    const password = await readPassword(request);
    const info = await state.command(
      spec.database,
      { usersInfo: { user: spec.username, db: spec.database } },
      signal,
      target,
    );
    const current = (info['users'] as { roles?: { role: string; db: string }[] }[] | undefined)?.[0];
    const roles = spec.roles.map((r) => ({ role: r.role, db: r.db }));
    if (current == null) {
      request.logger.info({ user: target }, 'creating user');
      await state.command(spec.database, { createUser: spec.username, pwd: password, roles }, signal, target);
    } else {
      if (roleKey(current.roles ?? []) !== roleKey(roles)) {
        await state.command(spec.database, { updateUser: spec.username, roles }, signal, target);
      }
      if (!(await state.canLogIn(spec.database, spec.username, password, signal))) {
        request.logger.info({ user: target }, 'updating password from its Secret');
        await state.command(spec.database, { updateUser: spec.username, pwd: password }, signal, target);
      }
    }
    return {
      state: 'ready',
      outputs: {
        username: spec.username,
        database: spec.database,
        connectionString: publicConnectionString(state.uri, {
          database: spec.database,
          username: spec.username,
        }),
      },
    };
  },
  async delete({ spec, state, signal }) {
    try {
      await state.command(
        spec.database,
        { dropUser: spec.username },
        signal,
        `${spec.username}@${spec.database}`,
      );
    } catch (error) {
      if (!(error instanceof ProviderError && error.code === 'UserNotFound')) throw error;
    }
    return { state: 'deleted' };
  },
};
