/**
 * The Orkestra Control Center page (docs/reference/runtime.md §23.5): plain DOM, no framework, no
 * inline script, no innerHTML (every text goes through text nodes). Routes are in the hash:
 * `#/` Katalogs and operator stats, `#/entry/<entry>` CRs, `#/cr/<entry>/<namespace|_>/<name>` one CR.
 * Data comes from `/api/v1` (or `/api/v1/upstreams/<i>` for an aggregated operator); updates from
 * `/api/v1/stream` (server-sent events read with fetch, so a bearer token can be sent).
 */

interface Condition {
  readonly status: string;
  readonly reason: string;
  readonly message: string;
}
interface GraphNode {
  readonly id: string;
  readonly group: string;
  readonly list: string;
  readonly kind: string;
  readonly mode: string;
  readonly wave: number;
  readonly count: number;
}
interface Entry {
  readonly name: string;
  readonly apiTypes: {
    readonly group: string;
    readonly version: string;
    readonly kind: string;
    readonly plural: string;
  };
  readonly namespaced: boolean;
  readonly synced: boolean;
  readonly objects: number;
  readonly graph: { readonly nodes: readonly GraphNode[] };
  /** By hook key: declaration names, or whether the entry declares it (runtime.md §23.2). */
  readonly hooks: Readonly<Record<string, readonly string[] | boolean>>;
  readonly providers: readonly string[];
  readonly dependsOn: readonly string[];
}
interface Rollout {
  readonly stable: string;
  readonly target: string;
  readonly phase: string;
  readonly step: number;
  readonly paused: boolean;
  readonly message: string;
}
/** Lifecycle is the Katalog's `lifecycle` block (katalog.md §2.5). */
interface Lifecycle {
  readonly maturity?: string;
  readonly deprecation?: {
    readonly message?: string;
    readonly migratedTo?: string;
    readonly timeline?: { readonly from?: string; readonly to?: string };
  };
  readonly compatibility?: { readonly kubernetes?: string; readonly orkestra?: string };
}
interface KatalogView {
  readonly operator: string;
  readonly name: string;
  readonly version: string;
  readonly lifecycle?: Lifecycle | null;
  readonly leader: boolean;
  readonly ready: boolean;
  readonly entries: readonly Entry[];
  readonly rollout?: Rollout | null;
}

/** lifecycleLine shows the Katalog's maturity, deprecation and verified versions, or nothing without a lifecycle. */
function lifecycleLine(lifecycle: Lifecycle | null | undefined): HTMLElement | null {
  if (lifecycle == null) return null;
  const deprecation = lifecycle.deprecation;
  const maturity = lifecycle.maturity ?? (deprecation == null ? undefined : 'deprecated');
  const parts: (HTMLElement | string)[] = [];
  if (maturity != null)
    parts.push(
      h(
        'span',
        { class: `badge ${maturity === 'stable' ? 'ok' : maturity === 'deprecated' ? 'bad' : 'wait'}` },
        maturity,
      ),
    );
  if (deprecation != null) {
    const end = deprecation.timeline?.to == null ? '' : ` End of life ${deprecation.timeline.to}.`;
    const to = deprecation.migratedTo == null ? '' : ` Migrate to ${deprecation.migratedTo}.`;
    parts.push(` ${deprecation.message ?? ''}${to}${end}`);
  }
  const compat = lifecycle.compatibility;
  if (compat?.kubernetes != null) parts.push(` Kubernetes ${compat.kubernetes}.`);
  if (compat?.orkestra != null) parts.push(` Orkestra ${compat.orkestra}.`);
  return parts.length === 0 ? null : h('p', { 'aria-label': 'Lifecycle' }, ...parts);
}

/** CallOutcome is one external call's last outcome (`GET /api/v1/calls`, runtime.md §23.2). */
interface CallOutcome {
  readonly entry: string;
  readonly call: string;
  readonly protocol: string;
  /** `scheme://host:port` of the last call (older operators send none). */
  readonly target?: string;
  readonly outcome: 'ok' | 'error' | 'timeout';
  readonly errorClass?: string;
  readonly status?: number;
  readonly at: string;
  readonly durationMs: number;
  readonly calls: number;
  readonly failures: number;
}

/** outcomeBadge is a call's last outcome: ok, timeout, or the error's class and HTTP status. */
function outcomeBadge(o: Pick<CallOutcome, 'outcome' | 'errorClass' | 'status'>): HTMLElement {
  const label =
    o.outcome === 'ok'
      ? 'ok'
      : o.outcome === 'timeout'
        ? 'timeout'
        : `error: ${o.errorClass ?? 'unknown'}${o.status == null ? '' : ` (${o.status})`}`;
  return h('span', { class: `badge ${o.outcome === 'ok' ? 'ok' : 'bad'}` }, label);
}

/** crCallsSection lists the last outcome of each external call made for one CR, or nothing before one. */
function crCallsSection(calls: readonly CrCall[] | undefined): HTMLElement | null {
  if (calls == null || calls.length === 0) return null;
  const head = ['Call', 'Protocol', 'Target', 'Last outcome', 'When', 'Duration'];
  return h(
    'section',
    { 'aria-labelledby': 'cr-calls' },
    h('h2', { id: 'cr-calls' }, 'External calls'),
    h(
      'table',
      { 'aria-label': 'External calls of this CR' },
      h('thead', {}, h('tr', {}, ...head.map((t) => h('th', { scope: 'col' }, t)))),
      h(
        'tbody',
        {},
        ...calls.map((o) =>
          h(
            'tr',
            {},
            h('td', {}, o.call),
            h('td', {}, o.protocol),
            h('td', {}, h('code', {}, o.target)),
            h('td', {}, outcomeBadge(o)),
            h('td', { title: o.at }, `${age(o.at)} ago`),
            h('td', {}, `${o.durationMs} ms`),
          ),
        ),
      ),
    ),
  );
}

/** externalSection lists each external call's last outcome, or nothing before the first call. */
function externalSection(outcomes: readonly CallOutcome[]): HTMLElement | null {
  if (outcomes.length === 0) return null;
  const head = ['Entry', 'Call', 'Protocol', 'Target', 'Last outcome', 'When', 'Duration', 'Calls (failed)'];
  const rows = outcomes.map((o) => {
    return h(
      'tr',
      {},
      h('td', {}, o.entry),
      h('td', {}, o.call),
      h('td', {}, o.protocol),
      h('td', {}, h('code', {}, o.target ?? '')),
      h('td', {}, outcomeBadge(o)),
      h('td', { title: o.at }, `${age(o.at)} ago`),
      h('td', {}, `${o.durationMs} ms`),
      h('td', {}, `${o.calls} (${o.failures})`),
    );
  });
  return h(
    'section',
    { 'aria-labelledby': 'external-calls' },
    h('h2', { id: 'external-calls' }, 'External calls'),
    h(
      'table',
      { 'aria-label': 'External calls' },
      h('thead', {}, h('tr', {}, ...head.map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, ...rows),
    ),
  );
}

/** rolloutSection shows where a Katalog rollout stands (runtime.md §24), or nothing without one. */
function rolloutSection(rollout: Rollout | null | undefined): HTMLElement | null {
  if (rollout == null) return null;
  const done = rollout.stable === rollout.target;
  const state = done ? 'ok' : rollout.phase === 'Failed' ? 'bad' : 'wait';
  const where = done ? 'complete' : rollout.step === 0 ? 'canary' : `wave ${rollout.step}`;
  return h(
    'section',
    { 'aria-labelledby': 'rollout' },
    h('h2', { id: 'rollout' }, 'Rollout'),
    h(
      'p',
      { 'data-rollout-phase': rollout.phase },
      h('span', { class: `badge ${state}` }, `${rollout.phase}${rollout.paused ? ' (paused)' : ''}`),
      ' ',
      done ? `revision ${rollout.target}` : `${rollout.stable} → ${rollout.target}, ${where}`,
      rollout.message === '' ? null : h('span', { class: 'reason' }, ` ${rollout.message}`),
    ),
  );
}
interface EntryStats {
  readonly entry: string;
  readonly queueDepth: number;
  readonly workers: number;
  readonly activeWorkers: number;
  readonly reconciles: number;
  readonly errors: number;
  readonly reconcileRate: number;
}
interface Stats {
  readonly entries: readonly EntryStats[];
}
interface CrSummary {
  readonly namespace?: string;
  readonly name: string;
  readonly created: string;
  readonly synced?: Condition;
  readonly ready?: Condition;
  readonly revision?: string;
  readonly deleting: boolean;
}
interface CrList {
  readonly namespaces: readonly string[];
  readonly items: readonly CrSummary[];
}
interface Child {
  readonly id: string;
  readonly parent: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
  readonly mode: string;
  readonly source?: string;
  readonly state: string;
  readonly ready: boolean;
  readonly reason: string;
}
interface RecentEvent {
  readonly type: string;
  readonly reason: string;
  readonly message: string;
  readonly time: string;
}
interface CrDetail extends CrSummary {
  readonly uid: string;
  readonly entry: string;
  readonly kind: string;
  readonly conditions: readonly (Condition & { readonly type: string })[];
  readonly children: readonly Child[];
  readonly providers: Readonly<Record<string, unknown>>;
  readonly fields: Readonly<Record<string, unknown>>;
  readonly hooks: readonly string[];
  readonly events: readonly RecentEvent[];
  /** Each external call's last outcome for this CR (runtime.md §23.2); older operators send none. */
  readonly calls?: readonly CrCall[];
}
/** CrCall is one external call's last outcome for one CR. */
interface CrCall {
  readonly call: string;
  readonly protocol: string;
  readonly target: string;
  readonly outcome: 'ok' | 'error' | 'timeout';
  readonly errorClass?: string;
  readonly status?: number;
  readonly at: string;
  readonly durationMs: number;
}
interface ApiIndex {
  readonly operator: string;
  readonly viewer: string;
  readonly upstreams: readonly { readonly index: number; readonly url: string }[];
}

type Child_ = Node | string | null | undefined | false;

/** h builds an element; strings become text nodes. */
function h(
  tag: string,
  attrs: Readonly<Record<string, string>> = {},
  ...children: readonly Child_[]
): HTMLElement {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) element.setAttribute(key, value);
  for (const child of children) {
    if (child == null || child === false) continue;
    element.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return element;
}

const SVG = 'http://www.w3.org/2000/svg';
function s(
  tag: string,
  attrs: Readonly<Record<string, string | number>> = {},
  ...children: readonly (Node | string)[]
): SVGElement {
  const element = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) element.setAttribute(key, String(value));
  for (const child of children)
    element.append(typeof child === 'string' ? document.createTextNode(child) : child);
  return element;
}

class HttpError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

const TOKEN_KEY = 'orkestra.controlCenter.token';
let base = '/api/v1';

function headers(): Record<string, string> {
  const token = sessionStorage.getItem(TOKEN_KEY);
  return token == null || token === '' ? {} : { authorization: `Bearer ${token}` };
}

async function getJson<T>(path: string): Promise<T> {
  const response = await fetch(`${base}${path}`, { headers: headers() });
  const body = (await response.json().catch(() => ({}))) as { error?: { message?: string } };
  if (!response.ok) throw new HttpError(response.status, body.error?.message ?? response.statusText);
  return body as T;
}

function age(created: string): string {
  const ms = Date.now() - Date.parse(created);
  if (!Number.isFinite(ms)) return '';
  const sec = Math.max(0, Math.floor(ms / 1000));
  if (sec < 120) return `${sec}s`;
  if (sec < 7200) return `${Math.floor(sec / 60)}m`;
  if (sec < 172_800) return `${Math.floor(sec / 3600)}h`;
  return `${Math.floor(sec / 86_400)}d`;
}

function badge(condition: Condition | undefined, label: string): HTMLElement {
  if (condition == null) return h('span', { class: 'badge wait' }, `${label} ?`);
  const cls = condition.status === 'True' ? 'ok' : condition.status === 'False' ? 'bad' : 'wait';
  return h('span', { class: `badge ${cls}`, title: condition.message }, `${label} ${condition.status}`);
}

function stateBadge(child: Child): HTMLElement {
  const cls = child.ready ? 'ok' : child.state === 'Failed' || child.state === 'NotFound' ? 'bad' : 'wait';
  return h('span', { class: `badge ${cls}` }, child.state);
}

function crHref(entry: string, namespace: string | undefined, name: string): string {
  return `#/cr/${encodeURIComponent(entry)}/${encodeURIComponent(namespace ?? '_')}/${encodeURIComponent(name)}`;
}

/** graph draws an entry's resource graph: hooks and providers first, then kinds by wave, arrows in order. */
function graph(entry: Entry): SVGElement {
  const columns = new Map<string, { title: string; items: { label: string; sub: string; cls: string }[] }>();
  const hooks = [
    ...Object.entries(entry.hooks).flatMap(([key, listed]) =>
      typeof listed === 'boolean' ? (listed ? [key] : []) : listed.map((name) => `${key} ${name}`),
    ),
    ...entry.providers.map((name) => `provider ${name}`),
  ];
  if (hooks.length > 0)
    columns.set('hooks', {
      title: 'hooks & providers',
      items: hooks.map((label) => ({ label, sub: '', cls: 'hook' })),
    });
  const ordered = [...entry.graph.nodes]
    .filter((n) => n.group !== 'onDelete')
    .sort((a, b) => a.wave - b.wave);
  for (const node of ordered) {
    const key = `kind order ${node.wave}`;
    const column = columns.get(key) ?? { title: key, items: [] };
    column.items.push({
      label: `${node.kind}${node.count > 1 ? ` ×${node.count}` : ''}`,
      sub: `${node.group} · ${node.mode}`,
      cls: `box ${node.mode}`,
    });
    columns.set(key, column);
  }
  const deletes = entry.graph.nodes.filter((n) => n.group === 'onDelete');
  if (deletes.length > 0)
    columns.set('delete', {
      title: 'onDelete',
      items: deletes.map((n) => ({ label: n.kind, sub: `group ${n.wave}`, cls: 'box create' })),
    });
  const colWidth = 190;
  const boxW = 160;
  const boxH = 44;
  const gap = 14;
  const list = [...columns.values()];
  const rows = Math.max(1, ...list.map((c) => c.items.length));
  const width = Math.max(1, list.length) * colWidth + 20;
  const height = 40 + rows * (boxH + gap) + 10;
  const svg = s('svg', {
    class: 'graph',
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    role: 'img',
    'aria-label': `Resource graph of ${entry.name}: ${list.map((c) => `${c.title}: ${c.items.map((i) => i.label).join(', ')}`).join('; ')}`,
  });
  svg.append(
    s(
      'defs',
      {},
      s(
        'marker',
        {
          id: 'arrow',
          viewBox: '0 0 10 10',
          refX: 9,
          refY: 5,
          markerWidth: 7,
          markerHeight: 7,
          orient: 'auto-start-reverse',
        },
        s('path', { d: 'M0,0 L10,5 L0,10 z', fill: '#57606a' }),
      ),
    ),
  );
  list.forEach((column, ci) => {
    const x = 10 + ci * colWidth;
    svg.append(s('text', { x, y: 22, 'font-weight': 600 }, column.title));
    column.items.forEach((item, ri) => {
      const y = 36 + ri * (boxH + gap);
      svg.append(s('rect', { class: item.cls, x, y, width: boxW, height: boxH, rx: 6 }));
      svg.append(s('text', { x: x + 8, y: y + 18 }, item.label));
      if (item.sub !== '')
        svg.append(s('text', { x: x + 8, y: y + 35, 'font-size': 11, fill: '#4a5360' }, item.sub));
    });
    if (ci + 1 < list.length) {
      const y = 36 + boxH / 2;
      svg.append(s('path', { class: 'edge', d: `M${x + boxW} ${y} L${x + colWidth - 4} ${y}` }));
    }
  });
  return svg;
}

async function katalogPage(): Promise<HTMLElement> {
  const [katalog, stats, external] = await Promise.all([
    getJson<KatalogView>('/katalog'),
    getJson<Stats>('/operator'),
    // An operator of an earlier version has no /external: the section is left out.
    getJson<{ items: CallOutcome[] }>('/calls').catch(() => ({ items: [] })),
  ]);
  const byEntry = new Map(stats.entries.map((e) => [e.entry, e]));
  const page = h(
    'div',
    {},
    h('h1', {}, `Katalog ${katalog.name}${katalog.version === '' ? '' : ` ${katalog.version}`}`),
  );
  page.append(
    h(
      'p',
      {},
      h(
        'span',
        { class: `badge ${katalog.ready ? 'ok' : 'wait'}` },
        katalog.ready ? 'informers synced' : 'syncing',
      ),
      ' ',
      h('span', { class: 'badge ok' }, katalog.leader ? 'leader' : 'standby'),
    ),
  );
  const lifecycle = lifecycleLine(katalog.lifecycle);
  if (lifecycle != null) page.append(lifecycle);
  const table = h(
    'table',
    { 'aria-label': 'Operator' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ...['Entry', 'Kind', 'CRs', 'Queue depth', 'Workers (active)', 'Reconciles', 'Errors', 'Rate /s'].map(
          (t) => h('th', { scope: 'col' }, t),
        ),
      ),
    ),
  );
  const body = h('tbody');
  for (const entry of katalog.entries) {
    const st = byEntry.get(entry.name);
    body.append(
      h(
        'tr',
        {},
        h('td', {}, h('a', { href: `#/entry/${encodeURIComponent(entry.name)}` }, entry.name)),
        h('td', {}, `${entry.apiTypes.kind} (${entry.apiTypes.group}/${entry.apiTypes.version})`),
        h('td', {}, String(entry.objects)),
        h('td', {}, String(st?.queueDepth ?? 0)),
        h('td', {}, `${st?.workers ?? 0} (${st?.activeWorkers ?? 0})`),
        h('td', {}, String(st?.reconciles ?? 0)),
        h('td', {}, String(st?.errors ?? 0)),
        h('td', {}, String(st?.reconcileRate ?? 0)),
      ),
    );
  }
  table.append(body);
  page.append(h('h2', {}, 'Operator'), table);
  const rollout = rolloutSection(katalog.rollout);
  if (rollout != null) page.append(rollout);
  const calls = externalSection(external.items);
  if (calls != null) page.append(calls);
  for (const entry of katalog.entries) {
    page.append(
      h(
        'section',
        { 'aria-labelledby': `entry-${entry.name}` },
        h('h2', { id: `entry-${entry.name}` }, `${entry.name}: ${entry.apiTypes.kind}`),
        entry.dependsOn.length > 0 ? h('p', {}, `depends on ${entry.dependsOn.join(', ')}`) : null,
        graph(entry),
      ),
    );
  }
  return page;
}

async function entryPage(entry: string, namespace: string): Promise<HTMLElement> {
  const list = await getJson<CrList>(
    `/entries/${encodeURIComponent(entry)}/crs${namespace === '' ? '' : `?namespace=${encodeURIComponent(namespace)}`}`,
  );
  const page = h(
    'div',
    {},
    h('p', { class: 'crumbs' }, h('a', { href: '#/' }, 'Katalog'), ` / ${entry}`),
    h('h1', {}, `${entry} CRs`),
  );
  const select = h('select', { id: 'ns' }, h('option', { value: '' }, 'all namespaces')) as HTMLSelectElement;
  for (const ns of list.namespaces) {
    const option = h('option', { value: ns }, ns === '' ? '(cluster)' : ns) as HTMLOptionElement;
    if (ns === namespace) option.selected = true;
    select.append(option);
  }
  select.addEventListener('change', () => {
    location.hash = `#/entry/${encodeURIComponent(entry)}${select.value === '' ? '' : `?namespace=${encodeURIComponent(select.value)}`}`;
  });
  page.append(h('p', { class: 'filter' }, h('label', { for: 'ns' }, 'Namespace '), select));
  const table = h(
    'table',
    { 'aria-label': `${entry} CRs` },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ...['Namespace', 'Name', 'Synced', 'Ready', 'Reason', 'Revision', 'Age'].map((t) =>
          h('th', { scope: 'col' }, t),
        ),
      ),
    ),
  );
  const body = h('tbody');
  for (const cr of list.items) {
    const reason = cr.ready?.status === 'True' ? '' : (cr.ready?.reason ?? cr.synced?.reason ?? '');
    body.append(
      h(
        'tr',
        {},
        h('td', {}, cr.namespace ?? ''),
        h('td', {}, h('a', { href: crHref(entry, cr.namespace, cr.name) }, cr.name)),
        h('td', {}, badge(cr.synced, 'Synced')),
        h('td', {}, badge(cr.ready, 'Ready'), cr.deleting ? ' deleting' : ''),
        h('td', {}, reason === '' ? '' : h('span', { title: cr.ready?.message ?? '' }, reason)),
        h('td', {}, cr.revision ?? ''),
        h('td', {}, age(cr.created)),
      ),
    );
  }
  if (list.items.length === 0) body.append(h('tr', {}, h('td', { colspan: '7' }, 'No CRs you may see.')));
  table.append(body);
  page.append(table);
  return page;
}

function childTree(cr: CrDetail): HTMLElement {
  const byParent = new Map<string, Child[]>();
  for (const child of cr.children) {
    const list = byParent.get(child.parent) ?? [];
    list.push(child);
    byParent.set(child.parent, list);
  }
  const branch = (parent: string, depth: number): HTMLElement | null => {
    const kids = byParent.get(parent);
    if (kids == null || depth > 8) return null;
    const ul = h('ul', { role: 'group' });
    for (const child of kids) {
      const label = h(
        'span',
        {
          class: `node${child.ready ? '' : ' notready'}`,
          'data-kind': child.kind,
          'data-name': child.name,
          'data-state': child.state,
        },
        h('span', { class: 'kind' }, child.kind),
        h('span', { class: 'name' }, child.name),
        h('span', { class: 'mode', title: child.source ?? '' }, child.mode),
        stateBadge(child),
        child.reason === '' ? null : h('span', { class: 'reason' }, child.reason),
      );
      ul.append(
        h(
          'li',
          { role: 'treeitem', 'aria-expanded': 'true', tabindex: '-1' },
          label,
          branch(child.id, depth + 1),
        ),
      );
    }
    return ul;
  };
  const root = h(
    'ul',
    { class: 'tree', role: 'tree', 'aria-label': `Children of ${cr.name}` },
    h(
      'li',
      { role: 'treeitem', 'aria-expanded': 'true', tabindex: '0' },
      h(
        'span',
        { class: 'node' },
        h('span', { class: 'kind' }, cr.kind),
        h('span', {}, cr.name),
        badge(cr.ready, 'Ready'),
        cr.ready?.status === 'True' ? null : h('span', { class: 'reason' }, cr.ready?.message ?? ''),
      ),
      branch(cr.uid, 0),
    ),
  );
  treeKeys(root);
  return root;
}

/** treeKeys gives the tree the arrow-key navigation of the WAI-ARIA tree pattern (up/down/home/end). */
function treeKeys(tree: HTMLElement): void {
  tree.addEventListener('keydown', (event) => {
    const items = [...tree.querySelectorAll<HTMLElement>('[role=treeitem]')];
    const index = items.indexOf(document.activeElement as HTMLElement);
    if (index < 0) return;
    const next =
      event.key === 'ArrowDown'
        ? index + 1
        : event.key === 'ArrowUp'
          ? index - 1
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? items.length - 1
              : -1;
    const target = items[next];
    if (target == null) return;
    event.preventDefault();
    items[index]?.setAttribute('tabindex', '-1');
    target.setAttribute('tabindex', '0');
    target.focus();
  });
}

function keyValues(title: string, value: Readonly<Record<string, unknown>>): HTMLElement | null {
  if (Object.keys(value).length === 0) return null;
  return h('section', {}, h('h3', {}, title), h('pre', {}, JSON.stringify(value, null, 2)));
}

async function crPage(entry: string, namespace: string, name: string): Promise<HTMLElement> {
  const [cr, katalog] = await Promise.all([
    getJson<CrDetail>(
      `/entries/${encodeURIComponent(entry)}/crs/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`,
    ),
    getJson<KatalogView>('/katalog'),
  ]);
  const rollout = katalog.rollout;
  const notReady = cr.children.filter((c) => !c.ready);
  const page = h(
    'div',
    {},
    h(
      'p',
      { class: 'crumbs' },
      h('a', { href: '#/' }, 'Katalog'),
      ' / ',
      h('a', { href: `#/entry/${encodeURIComponent(entry)}` }, entry),
      ` / ${cr.namespace ?? ''}${cr.namespace == null ? '' : '/'}${cr.name}`,
    ),
    h('h1', {}, `${cr.kind} ${cr.namespace == null ? '' : `${cr.namespace}/`}${cr.name}`),
    h(
      'p',
      {},
      badge(cr.synced, 'Synced'),
      ' ',
      badge(cr.ready, 'Ready'),
      ' ',
      h(
        'span',
        { class: 'reason' },
        cr.ready?.status === 'True' ? '' : `${cr.ready?.reason ?? ''}: ${cr.ready?.message ?? ''}`,
      ),
      cr.revision == null ? null : h('span', {}, ` revision ${cr.revision}`),
      rollout == null || rollout.stable === rollout.target || cr.revision == null
        ? null
        : h(
            'span',
            { class: 'reason', 'data-rollout': cr.revision === rollout.target ? 'target' : 'stable' },
            cr.revision === rollout.target
              ? ` (in the rollout to ${rollout.target}: ${rollout.phase})`
              : ` (keeps ${rollout.stable} until the rollout to ${rollout.target} reaches it)`,
          ),
      ` age ${age(cr.created)}`,
    ),
    h('h2', {}, `Children (${cr.children.length}, ${notReady.length} not ready)`),
    childTree(cr),
  );
  const conditions = h(
    'table',
    { 'aria-label': 'Conditions' },
    h(
      'thead',
      {},
      h('tr', {}, ...['Type', 'Status', 'Reason', 'Message'].map((t) => h('th', { scope: 'col' }, t))),
    ),
  );
  const cbody = h('tbody');
  for (const c of cr.conditions)
    cbody.append(
      h('tr', {}, h('td', {}, c.type), h('td', {}, c.status), h('td', {}, c.reason), h('td', {}, c.message)),
    );
  conditions.append(cbody);
  page.append(h('h2', {}, 'Conditions'), conditions);
  page.append(
    h('h2', {}, 'Hooks and providers'),
    cr.hooks.length === 0
      ? h('p', {}, 'none declared')
      : h('ul', {}, ...cr.hooks.map((hook) => h('li', {}, hook))),
  );
  const providers = keyValues('Provider outputs (secret values are never shown)', cr.providers);
  const fields = keyValues('Status fields', cr.fields);
  if (providers != null) page.append(providers);
  if (fields != null) page.append(fields);
  const calls = crCallsSection(cr.calls);
  if (calls != null) page.append(calls);
  const events = h(
    'table',
    { 'aria-label': 'Recent Events' },
    h(
      'thead',
      {},
      h('tr', {}, ...['Time', 'Type', 'Reason', 'Message'].map((t) => h('th', { scope: 'col' }, t))),
    ),
  );
  const ebody = h('tbody');
  for (const e of cr.events)
    ebody.append(
      h('tr', {}, h('td', {}, e.time), h('td', {}, e.type), h('td', {}, e.reason), h('td', {}, e.message)),
    );
  if (cr.events.length === 0)
    ebody.append(
      h('tr', {}, h('td', { colspan: '4' }, 'No Events recorded by this operator since it started.')),
    );
  events.append(ebody);
  page.append(h('h2', {}, 'Recent Events'), events);
  return page;
}

function tokenForm(message: string): HTMLElement {
  const input = h('input', {
    id: 'token',
    type: 'password',
    autocomplete: 'off',
    'aria-describedby': 'token-help',
  }) as HTMLInputElement;
  const form = h(
    'form',
    { class: 'token panel' },
    h('h1', {}, 'Sign in'),
    h('p', { class: 'error', role: 'alert' }, message),
    h('label', { for: 'token' }, 'Kubernetes bearer token'),
    input,
    h(
      'p',
      { id: 'token-help', class: 'reason' },
      'Checked by the API server (TokenReview); you see the namespaces you may list. Kept in this tab only.',
    ),
    h('button', { type: 'submit' }, 'Show'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, input.value.trim());
    if (base === '/api/v1') void operators();
    void render();
    void connect();
  });
  return form;
}

const main = (): HTMLElement => document.getElementById('main') as HTMLElement;
let rendering = 0;

async function render(): Promise<void> {
  const ticket = ++rendering;
  const [path, query = ''] = location.hash.replace(/^#/, '').split('?');
  const parts = (path ?? '')
    .split('/')
    .filter((p) => p !== '')
    .map(decodeURIComponent);
  let page: HTMLElement;
  try {
    if (parts[0] === 'entry' && parts[1] != null)
      page = await entryPage(parts[1], new URLSearchParams(query).get('namespace') ?? '');
    else if (parts[0] === 'cr' && parts.length === 4)
      page = await crPage(parts[1] ?? '', parts[2] ?? '_', parts[3] ?? '');
    else page = await katalogPage();
  } catch (error) {
    if (error instanceof HttpError && error.status === 401) page = tokenForm(error.message);
    else
      page = h(
        'div',
        {},
        h('h1', {}, 'Cannot show this page'),
        h('p', { class: 'error', role: 'alert' }, error instanceof Error ? error.message : String(error)),
      );
  }
  if (ticket !== rendering) return;
  const focused = document.activeElement?.id;
  main().replaceChildren(page);
  if (focused != null && focused !== '') document.getElementById(focused)?.focus();
  document.body.dataset['rendered'] = String(Date.now());
}

let stream: AbortController | undefined;
let pendingRender: number | undefined;

function setLive(text: string): void {
  const live = document.getElementById('live');
  if (live != null) live.textContent = text;
}

/** connect reads `/api/v1/stream` and re-renders on every change (coalesced per animation frame). */
async function connect(): Promise<void> {
  stream?.abort();
  const controller = new AbortController();
  stream = controller;
  try {
    const response = await fetch(`${base}/stream`, { headers: headers(), signal: controller.signal });
    if (!response.ok || response.body == null) {
      setLive(`live updates unavailable (${response.status})`);
      return;
    }
    setLive('live');
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (/^event: (change|events|reload)$/m.test(block)) {
          pendingRender ??= requestAnimationFrame(() => {
            pendingRender = undefined;
            void render();
          });
        }
      }
    }
  } catch {
    if (controller.signal.aborted) return;
  }
  if (stream === controller) {
    setLive('reconnecting…');
    setTimeout(() => void connect(), 1000);
  }
}

/** operators fills the operator picker: this operator and its `--control-center-upstreams`. */
async function operators(): Promise<void> {
  const select = document.getElementById('operator') as HTMLSelectElement | null;
  if (select == null) return;
  try {
    const index = await getJson<ApiIndex>('');
    select.replaceChildren(h('option', { value: '/api/v1' }, index.operator));
    for (const upstream of index.upstreams)
      select.append(h('option', { value: `/api/v1/upstreams/${upstream.index}` }, upstream.url));
    select.value = base;
  } catch {
    if (select.options.length === 0)
      select.replaceChildren(h('option', { value: '/api/v1' }, 'this operator'));
  }
}

document.getElementById('operator')?.addEventListener('change', (event) => {
  base = (event.target as HTMLSelectElement).value;
  void render();
  void connect();
});
window.addEventListener('hashchange', () => void render());
void operators();
void render();
void connect();
