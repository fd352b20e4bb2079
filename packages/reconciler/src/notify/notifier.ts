/**
 * Team notifications (docs/reference/katalog.md §15.4, docs/reference/runtime.md §14.9, ADR 0060).
 * After each reconcile, every condition of the entry that carries `notify:` is evaluated on its own
 * against the reconcile's context; for each passing one and each declared team the interval gate
 * decides, and an admitted message joins a bounded queue. One worker drains the queue: a
 * Slack-compatible webhook post through the address guard (precheck and pinned `lookup`, a
 * timeout), and email through `@orkestra/notify-smtp` (loaded on the first email) to the SMTP
 * host's checked address. Nothing here blocks or fails a reconcile: a full queue drops the
 * message, a failed send is counted and logged without the webhook URL or any credential, and
 * neither ever reaches a CR's status.
 */
import type { EvaluateConditionsOptions, Logger, Notification, Notify, RolloutNotify } from '@orkestra/types';
import { parseDuration } from '@orkestra/types';
import type { Clock } from '../clock.js';
import { AddressGuard } from '../hooks/address-guard.js';
import type { ResolveHost } from '../hooks/address-guard.js';
import { describeError, sendHttpRequest } from '../hooks/http-request.js';
import { IntervalGate } from './gate.js';
import type { RenderedNotification } from './message.js';
import { planNotifications, planRolloutNotifications } from './plan.js';
import type { NotifyingCondition, RolloutOutcomeEvent } from './plan.js';

/** NotificationChannel is the `channel` label of `orkestra_notifications_total`. */
type NotificationChannel = 'email' | 'webhook';
/** NotificationResult is the `result` label: sent, failed, or dropped (the queue was full). */
type NotificationResult = 'sent' | 'failed' | 'dropped';

/** NOTIFY_MODULE is the package of the SMTP client (a dependency of the operator, loaded by name). */
const NOTIFY_MODULE = '@orkestra/notify-smtp';

/** The part of `@orkestra/notify-smtp` used here (structural, so nodemailer stays out of this package). */
interface SmtpModule {
  sendMail(
    target: {
      host: string;
      serverName: string;
      port: number;
      secure: boolean;
      requireTLS?: boolean | undefined;
      ca?: string | undefined;
      user?: string | undefined;
      password?: string | undefined;
      timeoutMs: number;
    },
    message: {
      from: string;
      to: readonly string[];
      subject: string;
      text: string;
      headers?: Readonly<Record<string, string>>;
    },
  ): Promise<void>;
}

/** NotifierOptions are what the runtime lends the notifier. */
export interface NotifierOptions {
  readonly katalogName: string;
  readonly notification: Notification;
  readonly clock: Pick<Clock, 'now'>;
  readonly conditions: EvaluateConditionsOptions;
  /** Renders a message template against a context (the entry's engine). */
  readonly render: (template: string, context: Readonly<Record<string, unknown>>) => string;
  /** One decoded Secret key (undefined when absent). */
  readonly readSecret: (namespace: string, name: string, key: string) => Promise<string | undefined>;
  /** One ConfigMap key (undefined when absent): `smtp.caConfigMap`. Default: none can be read. */
  readonly readConfigMap?:
    ((namespace: string, name: string, key: string) => Promise<string | undefined>) | undefined;
  readonly logger: Logger;
  /** Counts each message per channel and result. Default none. */
  readonly count?: ((channel: NotificationChannel, result: NotificationResult) => void) | undefined;
  readonly allowLinkLocal?: boolean | undefined;
  readonly allowAddresses?: readonly string[] | undefined;
  readonly resolve?: ResolveHost | undefined;
  /** Imports `@orkestra/notify-smtp`. Default a dynamic `import()`. */
  readonly importModule?: ((specifier: string) => Promise<unknown>) | undefined;
  /** Messages waiting at most; more are dropped. Default 100. */
  readonly maxQueue?: number | undefined;
}

/** NotifyEntry is what the pipeline needs of one entry: the kind, and the conditions with `notify:`. */
export interface NotifyEntry {
  readonly name: string;
  readonly kind: string;
  readonly entry: unknown;
}

interface Job {
  readonly team: string;
  readonly message: RenderedNotification;
}

/** Notifier gates, queues and sends one Katalog's team notifications. */
export class Notifier {
  readonly #o: NotifierOptions;
  readonly #gate: IntervalGate;
  readonly #guard: AddressGuard;
  readonly #queue: Job[] = [];
  readonly #max: number;
  #draining: Promise<void> | undefined;
  #smtp: Promise<SmtpModule> | undefined;
  #stopped = false;
  readonly #warned = new Set<string>();

  constructor(options: NotifierOptions) {
    this.#o = options;
    this.#gate = new IntervalGate({ clock: options.clock });
    this.#max = options.maxQueue ?? 100;
    this.#guard = new AddressGuard({
      allowLinkLocal: options.allowLinkLocal ?? false,
      ...(options.allowAddresses == null ? {} : { allowAddresses: options.allowAddresses }),
      ...(options.resolve == null ? {} : { resolve: options.resolve }),
    });
  }

  /**
   * forEntry returns the entry's after-reconcile step, or undefined when none of its conditions
   * carries `notify:`. The step never throws and never waits for a send.
   */
  forEntry(entry: NotifyEntry): ((context: Readonly<Record<string, unknown>>) => void) | undefined {
    const conditions = notifyingConditions(entry.entry);
    if (conditions.length === 0) return undefined;
    return (context) => {
      try {
        this.#after(entry, conditions, context);
      } catch (error) {
        this.#o.logger.warn({ err: describeError(error), entry: entry.name }, 'notification skipped');
      }
    };
  }

  /**
   * rollout queues the team notifications of one rollout tick's outcomes (`spec.rollout.notify`,
   * docs/reference/katalog.md §2.3, ADR 0066). It never throws and never waits for a send: a
   * notification does not hold up or fail the rollout.
   */
  rollout(
    notify: RolloutNotify,
    events: readonly RolloutOutcomeEvent[],
    state: Parameters<typeof planRolloutNotifications>[3],
  ): void {
    try {
      const plan = { ...this.#o, gate: this.#gate };
      for (const due of planRolloutNotifications(plan, notify, events, state))
        this.#enqueue({ team: due.team, message: { subject: due.subject, text: due.text } });
    } catch (error) {
      this.#o.logger.warn({ err: describeError(error) }, 'rollout notification skipped');
    }
  }

  /** idle resolves once the queue is empty and no send is running (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.#draining != null) await this.#draining;
  }

  /** stop drops what is queued; a send under way finishes. */
  stop(): void {
    this.#stopped = true;
    this.#queue.length = 0;
  }

  #after(
    entry: NotifyEntry,
    conditions: readonly NotifyingCondition[],
    context: Readonly<Record<string, unknown>>,
  ): void {
    const plan = { ...this.#o, gate: this.#gate };
    for (const due of planNotifications(plan, entry, conditions, context))
      this.#enqueue({ team: due.team, message: { subject: due.subject, text: due.text } });
  }

  #enqueue(job: Job): void {
    if (this.#stopped) return;
    const team = this.#o.notification.teams[job.team];
    if (this.#queue.length >= this.#max) {
      for (const channel of channelsOf(team)) this.#o.count?.(channel, 'dropped');
      this.#o.logger.warn(
        { team: job.team, queued: this.#queue.length },
        'notification dropped: the queue is full',
      );
      return;
    }
    this.#queue.push(job);
    this.#draining ??= this.#drain().finally(() => {
      this.#draining = undefined;
    });
  }

  async #drain(): Promise<void> {
    for (let job = this.#queue.shift(); job != null; job = this.#queue.shift()) {
      const team = this.#o.notification.teams[job.team];
      if (team == null) continue;
      if ((team.email?.length ?? 0) > 0) {
        if (this.#o.notification.smtp == null) this.#missing(job.team, 'email', 'notification.smtp');
        else await this.#channel('email', job, () => this.#email(job, team.email ?? []));
      }
      if (team.webhook != null || this.#o.notification.slack != null)
        await this.#channel('webhook', job, () => this.#webhook(job, team.slack ?? []));
      else if ((team.slack?.length ?? 0) > 0) this.#missing(job.team, 'webhook', 'a webhook secretRef');
    }
  }

  /** #missing warns once per team and channel that a channel has no server configured (upstream skips it too). */
  #missing(team: string, channel: NotificationChannel, what: string): void {
    const key = `${team}|${channel}`;
    if (this.#warned.has(key)) return;
    this.#warned.add(key);
    this.#o.logger.warn({ team, channel }, `notification channel skipped: ${what} is not set`);
  }

  async #channel(channel: NotificationChannel, job: Job, send: () => Promise<void>): Promise<void> {
    try {
      await send();
      this.#o.count?.(channel, 'sent');
    } catch (error) {
      this.#o.count?.(channel, 'failed');
      this.#o.logger.warn({ team: job.team, channel, err: describeError(error) }, 'notification failed');
    }
  }

  async #configMap(ref: { name: string; key: string; namespace: string }, what: string): Promise<string> {
    const value = await this.#o.readConfigMap?.(ref.namespace, ref.name, ref.key);
    if (value == null || value === '')
      throw new Error(`${what}: ConfigMap ${ref.namespace}/${ref.name} has no key ${ref.key}`);
    return value;
  }

  async #secret(ref: { name: string; key: string; namespace: string }, what: string): Promise<string> {
    const value = await this.#o.readSecret(ref.namespace, ref.name, ref.key);
    if (value == null || value === '')
      throw new Error(`${what}: Secret ${ref.namespace}/${ref.name} has no key ${ref.key}`);
    return value.trim();
  }

  async #webhook(job: Job, channels: readonly string[]): Promise<void> {
    const { notification } = this.#o;
    const ref = notification.teams[job.team]?.webhook?.secretRef ?? notification.slack?.webhook.secretRef;
    if (ref == null) return;
    const address = await this.#secret(ref, 'webhook');
    let url: URL;
    try {
      url = new URL(address);
    } catch {
      throw new Error(`webhook: the URL in Secret ${ref.namespace}/${ref.name} is not a URL`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      throw new Error(`webhook: unsupported URL scheme ${url.protocol} (http or https only)`);
    const payload = {
      text: job.message.text,
      attachments: [
        {
          color: 'warning',
          fields: [
            { title: 'Katalog', value: this.#o.katalogName, short: true },
            { title: 'Team', value: job.team, short: true },
            ...(channels.length === 0
              ? []
              : [{ title: 'Channels', value: channels.join(', '), short: true }]),
          ],
        },
      ],
    };
    try {
      this.#guard.precheck(url);
      const response = await sendHttpRequest({
        url,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(payload),
        signal: AbortSignal.timeout(parseDuration(notification.timeout)),
        maxBodyBytes: 64 * 1024,
        lookup: this.#guard.lookup,
      });
      if (response.status < 200 || response.status > 299)
        throw new Error(`the webhook answered ${response.status}`);
    } catch (error) {
      // The URL of an incoming webhook is its credential: only its host is ever shown, and the
      // original error (which may hold the URL) is not kept as the cause.
      // eslint-disable-next-line preserve-caught-error -- the cause may carry the webhook URL
      throw new Error(`webhook at ${url.host}: ${describeError(error).split(address).join('[webhook]')}`);
    }
  }

  async #email(job: Job, to: readonly string[]): Promise<void> {
    const smtp = this.#o.notification.smtp;
    if (smtp == null) return;
    const user = smtp.auth == null ? undefined : await this.#secret(smtp.auth.user, 'smtp user');
    const password = smtp.auth == null ? undefined : await this.#secret(smtp.auth.password, 'smtp password');
    const ca =
      smtp.ca != null
        ? await this.#secret(smtp.ca, 'smtp ca')
        : smtp.caConfigMap != null
          ? await this.#configMap(smtp.caConfigMap, 'smtp ca')
          : undefined;
    const addresses = await this.#guard.addresses(new URL(`smtp://${smtp.host}`));
    const host = addresses?.[0]?.address ?? smtp.host;
    const module = await this.#smtpModule();
    await module.sendMail(
      {
        host,
        serverName: smtp.host,
        port: smtp.port,
        secure: smtp.secure,
        requireTLS: smtp.requireTLS,
        ca,
        user,
        password,
        timeoutMs: parseDuration(smtp.timeout),
      },
      {
        from: smtp.from,
        to,
        subject: job.message.subject,
        text: job.message.text,
        headers: { 'X-Orkestra-Katalog': this.#o.katalogName, 'X-Orkestra-Team': job.team },
      },
    );
  }

  #smtpModule(): Promise<SmtpModule> {
    const load = this.#o.importModule ?? ((specifier: string) => import(specifier));
    return (this.#smtp ??= load(NOTIFY_MODULE).then(
      (module) => module as SmtpModule,
      (error: unknown) => {
        this.#smtp = undefined;
        throw new Error(`email needs the package ${NOTIFY_MODULE} (${describeError(error)})`);
      },
    ));
  }
}

function channelsOf(team: Notification['teams'][string] | undefined): NotificationChannel[] {
  if (team == null) return [];
  return [...((team.email?.length ?? 0) > 0 ? (['email'] as const) : []), 'webhook'];
}

const ENTRY_CACHE = new WeakMap<object, readonly NotifyingCondition[]>();

/**
 * notifyingConditions finds every normalized condition with `notify:` in a compiled entry (in
 * `when`/`anyOf` lists wherever they are: status fields, resources, validation), once per entry.
 */
export function notifyingConditions(entry: unknown): readonly NotifyingCondition[] {
  if (entry == null || typeof entry !== 'object') return [];
  const cached = ENTRY_CACHE.get(entry);
  if (cached != null) return cached;
  const found: NotifyingCondition[] = [];
  const seen = new WeakSet<object>();
  const visit = (node: unknown): void => {
    if (node == null || typeof node !== 'object' || seen.has(node)) return;
    seen.add(node);
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    const record = node as Record<string, unknown>;
    const notify = record['notify'] as Notify | undefined;
    if (notify != null && Array.isArray(notify.teams) && typeof record['negate'] === 'boolean') {
      found.push(record as unknown as NotifyingCondition);
      return;
    }
    // A gate's `notify:` conditions are told when the gate holds a CR (ADR 0070), not after a reconcile.
    for (const [key, value] of Object.entries(record))
      if (node !== entry || key !== 'preReconcile') visit(value);
  };
  visit(entry);
  ENTRY_CACHE.set(entry, found);
  return found;
}
