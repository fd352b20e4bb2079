/**
 * Runs a container of an unpacked OCI image the way a kubelet and its container runtime would, as
 * far as this machine allows without one: its own mount and PID namespaces (the entrypoint is
 * PID 1), the image's root filesystem mounted read-only (`readOnlyRootFilesystem: true`), emptyDir
 * volumes as tmpfs, ConfigMap and ServiceAccount volumes as read-only bind mounts, the process
 * confined to the rootfs (chroot) as the pod's uid/gid with no supplementary groups, no
 * capabilities and no_new_privs (`allowPrivilegeEscalation: false`). The network namespace is the
 * host's, so the API server on 127.0.0.1 is reachable as the "Service". Needs root (util-linux
 * unshare and setpriv on the host).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import {
  mkdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';

/** ImageConfig is the part of an OCI image config a runtime reads. */
export interface ImageConfig {
  readonly Entrypoint?: readonly string[];
  readonly Cmd?: readonly string[];
  readonly Env?: readonly string[];
  readonly WorkingDir?: string;
  readonly User?: string;
}

/** Mount is one volume mount of the container. */
export type Mount =
  | { readonly kind: 'tmpfs'; readonly path: string }
  | { readonly kind: 'bind'; readonly source: string; readonly path: string; readonly readOnly: boolean };

/** ContainerSpec is what the pod spec says about the container (already resolved by the caller). */
export interface ContainerSpec {
  /** `args` of the container (replace the image's Cmd). */
  readonly args?: readonly string[];
  /** Environment on top of the image's Env. */
  readonly env: Readonly<Record<string, string>>;
  readonly mounts: readonly Mount[];
  readonly runAsUser: number;
  readonly runAsGroup: number;
}

/** Container is a running container. */
export interface Container {
  readonly child: ChildProcess;
  /** The entrypoint's host PID (PID 1 in its namespace). */
  readonly pid: Promise<number>;
  /** stdout so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or signal) of the container's PID 1. */
  readonly exited: Promise<number | string>;
  /** Sends `signal` to PID 1 of the container, as a runtime does on stop. */
  kill(signal: NodeJS.Signals): Promise<void>;
}

const quote = (value: string): string => `'${value.replaceAll("'", `'\\''`)}'`;

/** runContainer starts the image's entrypoint in `rootfs` under `spec`. */
export function runContainer(rootfs: string, image: ImageConfig, spec: ContainerSpec): Container {
  const command = [...(image.Entrypoint ?? []), ...(spec.args ?? image.Cmd ?? [])];
  if (command.length === 0) throw new Error('the image has no entrypoint and the container no args');
  const env = new Map<string, string>();
  for (const entry of image.Env ?? []) {
    const at = entry.indexOf('=');
    env.set(entry.slice(0, at), entry.slice(at + 1));
  }
  for (const [key, value] of Object.entries(spec.env)) env.set(key, value);
  const R = quote(rootfs);
  const lines = [
    'set -eu',
    // Private propagation, then the rootfs becomes a mount of its own so it can be made read-only.
    'mount --make-rprivate /',
    `mount --bind ${R} ${R}`,
    `mount -t proc -o nosuid,nodev,noexec proc ${R}/proc`,
    `mount -t tmpfs -o nosuid,mode=0755,size=64k tmpfs ${R}/dev`,
    ...['null', 'zero', 'random', 'urandom'].map(
      (d) => `touch ${R}/dev/${d} && mount --bind /dev/${d} ${R}/dev/${d}`,
    ),
  ];
  for (const mount of spec.mounts) {
    const target = `${R}${quote(mount.path)}`;
    lines.push(`mkdir -p ${target}`);
    if (mount.kind === 'tmpfs') {
      lines.push(`mount -t tmpfs -o nosuid,nodev,mode=1777 tmpfs ${target}`);
    } else {
      lines.push(`mount --bind ${quote(mount.source)} ${target}`);
      if (mount.readOnly) lines.push(`mount -o remount,bind,ro ${target}`);
    }
  }
  lines.push(`mount -o remount,bind,ro ${R}`);
  const assignments = [...env].map(([key, value]) => quote(`${key}=${value}`));
  lines.push(
    [
      'exec /usr/bin/env -i',
      ...assignments,
      '/usr/bin/setpriv --no-new-privs',
      `/usr/bin/unshare --root=${R} --wd=${quote(image.WorkingDir ?? '/')}`,
      `--setgid=${spec.runAsGroup} --setuid=${spec.runAsUser} --`,
      ...command.map(quote),
    ].join(' '),
  );
  const child = spawn(
    '/usr/bin/unshare',
    ['--mount', '--pid', '--fork', '--kill-child', '/bin/sh', '-c', lines.join('\n')],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | string>((resolve) => {
    child.on('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'));
  });
  const pid = (async () => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      // The forked child of unshare is PID 1 of the namespace: sh, which execs into the entrypoint.
      const children = readChildren(child.pid);
      const first = children[0];
      if (first != null && entrypointRunning(first, command[0] ?? '')) return first;
      if (child.exitCode != null || Date.now() > deadline) {
        throw new Error(`the container did not start: ${stderr.slice(-2000)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    child,
    pid,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    kill: async (signal) => {
      process.kill(await pid, signal);
    },
  };
}

function readChildren(pid: number | undefined): number[] {
  if (pid == null) return [];
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

function entrypointRunning(pid: number, executable: string): boolean {
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return cmdline[0] === executable;
  } catch {
    return false;
  }
}

/**
 * projectConfigMap writes `data` into `dir` the way the kubelet's atomic writer does: the files
 * live in a timestamped directory, `..data` is a symlink to it, and each key is a symlink through
 * `..data`. Calling it again swaps `..data` atomically (what a ConfigMap update looks like inside a pod).
 */
export function projectConfigMap(dir: string, data: Readonly<Record<string, string>>, stamp: string): void {
  mkdirSync(dir, { recursive: true });
  const version = `..${stamp}`;
  const target = join(dir, version);
  mkdirSync(target, { mode: 0o755 });
  for (const [key, value] of Object.entries(data)) writeFileSync(join(target, key), value, { mode: 0o644 });
  const tmpLink = join(dir, '..data_tmp');
  rmSync(tmpLink, { force: true });
  symlinkSync(version, tmpLink);
  let previous: string | undefined;
  try {
    previous = readlinkSync(join(dir, '..data'));
  } catch {
    previous = undefined;
  }
  renameSync(tmpLink, join(dir, '..data'));
  for (const key of Object.keys(data)) {
    rmSync(join(dir, key), { force: true });
    symlinkSync(join('..data', key), join(dir, key));
  }
  if (previous != null && previous !== version) rmSync(join(dir, previous), { recursive: true, force: true });
}
