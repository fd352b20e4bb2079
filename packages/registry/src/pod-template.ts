import type { Fields } from './fields.js';
import { templateError } from './fields.js';
import { compact } from './kind-module.js';

/** ContainerOptions says which workload fields a kind allows. */
export interface ContainerOptions {
  /** deployments and statefulSets: `port`/`ports` and `probes`. */
  readonly service: boolean;
  /** Extra volume mounts (statefulSet claim templates). */
  readonly extraMounts?: readonly Record<string, unknown>[];
}

type Obj = Record<string, unknown>;

/**
 * buildPodSpec builds a pod spec with one container named after the workload from the shared
 * workload fields (docs/reference/katalog.md §7.3, §7.7).
 */
export function buildPodSpec(f: Fields, containerName: string, options: ContainerOptions): Obj {
  const container = buildContainer(f, containerName, options);
  const pullSecrets = f.strList('imagePullSecrets');
  const nodeSelector = f.strMap('nodeSelector');
  const volumes = f.list('volumes')?.map(volume);
  const podSecurity = f.obj('podSecurity');
  return compact({
    containers: [container],
    imagePullSecrets:
      pullSecrets == null || pullSecrets.length === 0 ? undefined : pullSecrets.map((name) => ({ name })),
    serviceAccountName: f.str('serviceAccountName'),
    nodeSelector: nodeSelector == null || Object.keys(nodeSelector).length === 0 ? undefined : nodeSelector,
    volumes: volumes == null || volumes.length === 0 ? undefined : volumes,
    securityContext: podSecurity == null ? undefined : podSecurityContext(podSecurity),
  });
}

/** buildContainer builds the workload's single container. */
function buildContainer(f: Fields, name: string, options: ContainerOptions): Obj {
  const ports = options.service ? containerPorts(f) : undefined;
  if (!options.service) {
    for (const key of ['port', 'ports', 'probes']) {
      if (f.has(key)) throw templateError(f.at(key), 'is not allowed for jobs and cronJobs');
    }
  }
  const firstPort = ports?.[0]?.['containerPort'] as number | undefined;
  rejectEnvMap(f);
  const env = [...(f.list('env') ?? []).map(envVar), ...keyedEnvFrom(f)];
  const envFrom = plainEnvFrom(f);
  const resources = f.obj('resources');
  const probes = options.service ? f.obj('probes') : undefined;
  const security = f.obj('securityContext');
  const mounts = [...(f.list('volumeMounts')?.map(volumeMount) ?? []), ...(options.extraMounts ?? [])];
  return compact({
    name,
    image: f.reqStr('image'),
    imagePullPolicy: f.str('imagePullPolicy'),
    workingDir: f.str('workingDirectory'),
    command: f.strList('command'),
    args: f.strList('args'),
    ports,
    env: env.length === 0 ? undefined : env,
    envFrom: envFrom.length === 0 ? undefined : envFrom,
    resources: resources == null ? undefined : resourceRequirements(resources),
    startupProbe:
      probes?.obj('startup') == null ? undefined : probe(probes.obj('startup') as Fields, firstPort),
    livenessProbe:
      probes?.obj('liveness') == null ? undefined : probe(probes.obj('liveness') as Fields, firstPort),
    readinessProbe:
      probes?.obj('readiness') == null ? undefined : probe(probes.obj('readiness') as Fields, firstPort),
    securityContext: security == null ? undefined : containerSecurityContext(security),
    volumeMounts: mounts.length === 0 ? undefined : mounts,
  });
}

function rejectEnvMap(f: Fields): void {
  const raw = f.raw('env');
  if (raw != null && typeof raw === 'object' && !Array.isArray(raw)) {
    throw templateError(
      f.at('env'),
      'must be a list of {name, value}; the map form is not supported (write `- {name: KEY, value: ...}`)',
    );
  }
}

function containerPorts(f: Fields): Obj[] | undefined {
  if (f.has('port') && f.has('ports')) throw templateError(f.at('ports'), 'is exclusive with `port`');
  const port = f.int('port');
  if (port != null) return [{ containerPort: port, protocol: f.str('protocol') ?? 'TCP' }];
  const list = f.list('ports');
  if (list == null) return undefined;
  return list.map((p) =>
    compact({
      name: p.str('name'),
      containerPort: p.reqInt('containerPort'),
      protocol: p.str('protocol') ?? 'TCP',
    }),
  );
}

function envVar(e: Fields): Obj {
  const name = e.reqStr('name');
  const from = e.obj('valueFrom');
  if (from == null) return { name, value: e.str('value') ?? '' };
  const secret = from.obj('secretKeyRef');
  const config = from.obj('configMapKeyRef');
  const field = from.obj('fieldRef');
  let valueFrom: Obj;
  if (secret != null) valueFrom = { secretKeyRef: keyRef(secret) };
  else if (config != null) valueFrom = { configMapKeyRef: keyRef(config) };
  else if (field != null) valueFrom = { fieldRef: { fieldPath: field.reqStr('fieldPath') } };
  else throw templateError(from.path, 'needs one of secretKeyRef, configMapKeyRef, fieldRef');
  return { name, valueFrom };
}

function keyRef(r: Fields): Obj {
  return compact({ name: r.reqStr('name'), key: r.reqStr('key'), optional: r.bool('optional') });
}

const ENV_SOURCES = [
  ['secretRef', 'secretKeyRef'],
  ['configMapRef', 'configMapKeyRef'],
] as const;

function keyedEnvFrom(f: Fields): Obj[] {
  const from = f.obj('envFrom');
  if (from == null) return [];
  const out: Obj[] = [];
  for (const [listKey, refKey] of ENV_SOURCES) {
    for (const r of from.list(listKey) ?? []) {
      const keys = r.strList('keys');
      if (keys == null) continue;
      const name = r.reqStr('name');
      const optional = r.bool('optional');
      const prefix = r.str('prefix') ?? '';
      const suffix = r.str('suffix') ?? '';
      for (const key of keys) {
        out.push({
          name: `${prefix}${key}${suffix}`,
          valueFrom: { [refKey]: compact({ name, key, optional }) },
        });
      }
    }
  }
  return out;
}

function plainEnvFrom(f: Fields): Obj[] {
  const from = f.obj('envFrom');
  if (from == null) return [];
  const out: Obj[] = [];
  for (const [listKey] of ENV_SOURCES) {
    for (const r of from.list(listKey) ?? []) {
      if (r.has('keys')) continue;
      if (r.has('suffix')) throw templateError(r.at('suffix'), 'requires `keys`');
      out.push(
        compact({
          prefix: r.str('prefix'),
          [listKey]: compact({ name: r.reqStr('name'), optional: r.bool('optional') }),
        }),
      );
    }
  }
  return out;
}

function quantityMap(f: Fields | undefined): Obj | undefined {
  if (f == null) return undefined;
  const out: Obj = {};
  for (const key of f.keys()) out[key] = f.quantity(key);
  return Object.keys(out).length === 0 ? undefined : out;
}

function resourceRequirements(r: Fields): Obj | undefined {
  const out = compact({ requests: quantityMap(r.obj('requests')), limits: quantityMap(r.obj('limits')) });
  return Object.keys(out).length === 0 ? undefined : out;
}

function probe(p: Fields, containerPort: number | undefined): Obj {
  const type = p.str('type') ?? (p.has('path') ? 'http' : p.has('command') ? 'exec' : 'tcp');
  const timing = {
    initialDelaySeconds: p.int('initialDelaySeconds'),
    periodSeconds: p.int('periodSeconds'),
    timeoutSeconds: p.int('timeoutSeconds'),
    failureThreshold: p.int('failureThreshold'),
    successThreshold: p.int('successThreshold'),
  };
  if (type === 'exec') return compact({ exec: { command: p.strList('command') ?? [] }, ...timing });
  const port = p.intOrString('port') ?? containerPort;
  if (port == null) throw templateError(p.at('port'), 'is required when the container has no port');
  if (type === 'http') return compact({ httpGet: { path: p.str('path') ?? '/', port }, ...timing });
  if (type === 'tcp') return compact({ tcpSocket: { port }, ...timing });
  throw templateError(p.at('type'), `must be http, tcp or exec, got "${type}"`);
}

const PROFILES = ['baseline', 'restricted', 'hardened'] as const;

function profileOf(f: Fields): (typeof PROFILES)[number] | undefined {
  const profile = f.str('profile');
  if (profile == null) return undefined;
  if (!(PROFILES as readonly string[]).includes(profile)) {
    throw templateError(f.at('profile'), `must be one of ${PROFILES.join(', ')}, got "${profile}"`);
  }
  return profile as (typeof PROFILES)[number];
}

/** containerSecurityContext expands a profile or copies the explicit container fields. */
function containerSecurityContext(s: Fields): Obj {
  const profile = profileOf(s);
  if (profile != null) {
    const base: Obj = { privileged: false, allowPrivilegeEscalation: false };
    if (profile === 'baseline') return base;
    const restricted: Obj = {
      ...base,
      runAsNonRoot: true,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    };
    return profile === 'restricted' ? restricted : { ...restricted, readOnlyRootFilesystem: true };
  }
  const caps = s.obj('capabilities');
  return compact({
    allowPrivilegeEscalation: s.bool('allowPrivilegeEscalation'),
    readOnlyRootFilesystem: s.bool('readOnlyRootFilesystem'),
    runAsNonRoot: s.bool('runAsNonRoot'),
    runAsUser: s.int('runAsUser'),
    runAsGroup: s.int('runAsGroup'),
    privileged: s.bool('privileged'),
    capabilities:
      caps == null ? undefined : compact({ add: caps.strList('add'), drop: caps.strList('drop') }),
  });
}

/** podSecurityContext expands a profile or copies the explicit pod fields. */
function podSecurityContext(s: Fields): Obj | undefined {
  const profile = profileOf(s);
  if (profile != null) {
    return profile === 'baseline'
      ? undefined
      : { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } };
  }
  const out = compact({
    runAsNonRoot: s.bool('runAsNonRoot'),
    runAsUser: s.int('runAsUser'),
    runAsGroup: s.int('runAsGroup'),
    fsGroup: s.int('fsGroup'),
  });
  return Object.keys(out).length === 0 ? undefined : out;
}

function volume(v: Fields): Obj {
  const name = v.reqStr('name');
  const sources = ['configMap', 'secret', 'emptyDir', 'persistentVolumeClaim', 'hostPath'].filter((k) =>
    v.has(k),
  );
  if (sources.length !== 1) {
    throw templateError(
      v.path,
      'needs exactly one of configMap, secret, emptyDir, persistentVolumeClaim, hostPath',
    );
  }
  const cm = v.obj('configMap');
  if (cm != null) return { name, configMap: { name: cm.reqStr('name') } };
  const secret = v.obj('secret');
  if (secret != null)
    return {
      name,
      secret: { secretName: secret.reqStr(secret.alias('secretName', 'name') ?? 'secretName') },
    };
  const empty = v.obj('emptyDir');
  if (empty != null)
    return {
      name,
      emptyDir: compact({ medium: empty.str('medium'), sizeLimit: empty.quantity('sizeLimit') }),
    };
  const pvc = v.obj('persistentVolumeClaim');
  if (pvc != null) {
    return {
      name,
      persistentVolumeClaim: compact({ claimName: pvc.reqStr('claimName'), readOnly: pvc.bool('readOnly') }),
    };
  }
  const host = v.obj('hostPath') as Fields;
  return { name, hostPath: compact({ path: host.reqStr('path'), type: host.str('type') }) };
}

function volumeMount(m: Fields): Obj {
  return compact({
    name: m.reqStr('name'),
    mountPath: m.reqStr('mountPath'),
    subPath: m.str('subPath'),
    readOnly: m.bool('readOnly'),
  });
}

/** podTemplateMetadata builds a pod template's labels (object labels + podLabels + selector) and annotations. */
export function podTemplateMetadata(
  f: Fields,
  labels: Readonly<Record<string, string>>,
  selector: Readonly<Record<string, string>>,
): Obj {
  const podAnnotations = f.strMap('podAnnotations');
  return compact({
    labels: { ...(f.strMap('podLabels') ?? {}), ...labels, ...selector },
    annotations:
      podAnnotations == null || Object.keys(podAnnotations).length === 0 ? undefined : podAnnotations,
  });
}
