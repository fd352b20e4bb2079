/**
 * @orkestra/provider-hello is the smallest useful provider, built with `defineProvider`: kind
 * `greeting` keeps a greeting in memory and outputs its text; the word may come from a ConfigMap.
 *
 * Main exports: createProvider, configSchema (what the operator imports), HelloConfig, GreetingSpec.
 *
 * @example
 * // providers: [{ name: hello, package: "@orkestra/provider-hello", config: { greeting: Hi } }]
 * // operatorBox.providers.hello: [{ name: welcome, greeting: { to: "{{ metadata.name }}" } }]
 */
import { defineProvider } from '@orkestra/provider-kit';
import { z } from 'zod';

/** HelloConfig is the provider config: the default greeting word. */
export const HelloConfig = z.object({ greeting: z.string().min(1).default('Hello') });
/** HelloConfig is the parsed provider config. */
export type HelloConfig = z.infer<typeof HelloConfig>;

/** GreetingSpec is a `greeting` declaration: whom to greet, optionally with a word from a ConfigMap key. */
export const GreetingSpec = z.object({
  to: z.string().regex(/^[a-z0-9-]{1,63}$/, 'lowercase letters, digits and "-", 1 to 63 characters'),
  wordFrom: z.object({ configMap: z.string().min(1), key: z.string().min(1) }).optional(),
});
/** GreetingSpec is a parsed `greeting` declaration. */
export type GreetingSpec = z.infer<typeof GreetingSpec>;

const hello = defineProvider({
  name: 'hello',
  configSchema: HelloConfig,
  setup: ({ config }) => ({ config, greetings: new Map<string, string>() }),
  kinds: {
    greeting: {
      schema: GreetingSpec,
      outputs: ['text'],
      async reconcile({ spec, state, kube, owner }) {
        const from = spec.wordFrom;
        const namespace = owner.metadata.namespace ?? 'default';
        const word =
          from == null
            ? state.config.greeting
            : (await kube.getConfigMap(namespace, from.configMap))?.[from.key];
        if (word == null)
          return { state: 'pending', message: `ConfigMap ${from?.configMap} has no key ${from?.key}` };
        state.greetings.set(spec.to, `${word}, ${spec.to}!`);
        return { state: 'ready', outputs: { text: `${word}, ${spec.to}!` } };
      },
      async delete({ spec, state }) {
        state.greetings.delete(spec.to);
        return { state: 'deleted' };
      },
    },
  },
});

/** configSchema validates the provider config; the operator imports it by name. */
export const configSchema = hello.configSchema;
/** createProvider starts a hello provider; the operator imports it by name. */
export const createProvider = hello.createProvider;
