import { readdirSync, readFileSync } from 'node:fs';
import { BlockList, isIP } from 'node:net';
import { join, resolve } from 'node:path';
import { DockerfileParser, Env, JSONInstruction } from 'dockerfile-ast';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Job } from 'kubernetes-models/batch/v1';
import { Ingress, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Secret, Service } from 'kubernetes-models/v1';
import { parse, parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '@/server/config/config-settings';
import { parseProxyTrust, resolveClient } from '@/server/config/proxy-trust';
import { METADATA_RANGES } from '@/server/providers/outbound/address-class';
import { EXAMPLE_SECRET_VALUES, placeholderSecrets } from '@/server/instance/placeholder-secrets';
import { startCommand } from '../../scripts/lib/start-command';

// The deployment files agree with the API schemas and with each other: every Kubernetes
// manifest validates against the Kubernetes API's schemas (kubernetes-models), probes name
// /readyz and /healthz, the pod's grace covers preStop + SHUTDOWN_GRACE_SECONDS, and the
// commands are the image's; compose.yaml reads every secret from .env, which .env.example lists.

const ROOT = resolve(import.meta.dirname, '../..');
const K8S = join(ROOT, 'deploy', 'kubernetes');

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Manifest = Record<string, any>;
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'apps/v1/Deployment': Deployment,
  'batch/v1/Job': Job,
  'v1/Service': Service,
  'v1/Secret': Secret,
  'v1/ConfigMap': ConfigMap,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'networking.k8s.io/v1/Ingress': Ingress,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
};

const manifests: Manifest[] = readdirSync(K8S)
  .filter((file) => file.endsWith('.yaml'))
  .flatMap((file) => parseAllDocuments(readFileSync(join(K8S, file), 'utf8')).map((doc) => ({ ...(doc.toJSON() as Manifest), file })));
const find = (kind: string, name: string) => manifests.find((m) => m.kind === kind && m.metadata?.name === name)!;

function validate(manifest: Manifest): void {
  const Model = MODELS[`${manifest.apiVersion}/${manifest.kind}`];
  if (!Model) throw new Error(`${manifest.file}: no schema for ${manifest.apiVersion} ${manifest.kind}`);
  const { file: _file, ...object } = manifest;
  new Model(object as never).validate();
}

const dockerfile = DockerfileParser.parse(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
const cmd = dockerfile
  .getInstructions()
  .filter((instruction): instruction is JSONInstruction => instruction.getKeyword() === 'CMD' && instruction instanceof JSONInstruction)
  .at(-1)!
  .getJSONStrings()
  .map((value) => value.getJSONValue());
const expose = dockerfile
  .getInstructions()
  .find((instruction) => instruction.getKeyword() === 'EXPOSE')!
  .getArgumentsContent();
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const compose = parse(readFileSync(join(ROOT, 'compose.yaml'), 'utf8'), { merge: true }) as { services: Record<string, any> };
const envExample = new Map(
  readFileSync(join(ROOT, '.env.example'), 'utf8')
    .split('\n')
    .filter((line) => /^[A-Z_0-9]+=/.test(line))
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
);

describe('deploy/kubernetes', () => {
  it("keeps deploy.md's filled-in secret.yaml out of git and the image", () => {
    const lines = (file: string) => readFileSync(join(ROOT, file), 'utf8').split('\n');
    expect(lines('.gitignore')).toContain('/secret.yaml');
    expect(lines('.dockerignore')).toContain('secret.yaml');
  });

  it('has the Deployments, the migrate Job, the Service, the Ingress, the autoscaler, the policies and the Secret example, each valid against the Kubernetes API schemas', () => {
    expect(manifests.map((m) => `${m.kind}/${m.metadata.name}`).sort()).toEqual(
      [
        'ConfigMap/wgs-config',
        'Deployment/wgs-app',
        'Deployment/wgs-worker',
        'HorizontalPodAutoscaler/wgs-app',
        'Ingress/wgs-app',
        'Job/wgs-migrate',
        'NetworkPolicy/wgs-egress',
        'NetworkPolicy/wgs-ingress',
        'PodDisruptionBudget/wgs-app',
        'Secret/wgs-secrets',
        'Service/wgs-app',
      ].sort(),
    );
    for (const manifest of manifests) expect(() => validate(manifest), manifest.file).not.toThrow();
  });

  it('the validator refuses a manifest that breaks the schema', () => {
    const broken = structuredClone(find('Deployment', 'wgs-app'));
    broken.spec.replicas = 'two';
    expect(() => validate(broken)).toThrow(/replicas must be integer/);
    const noPort = structuredClone(find('Service', 'wgs-app'));
    noPort.spec.ports[0].port = 'http';
    expect(() => validate(noPort)).toThrow(/port/);
  });

  it('probes readiness on /readyz and liveness on /healthz, and gives the drain its time', () => {
    const pod = find('Deployment', 'wgs-app').spec.template.spec;
    const [app] = pod.containers;
    expect(app.command).toBeUndefined(); // the image's CMD: the production command
    expect(cmd.slice(-2)).toEqual(['dist/start.js', '--production']);
    expect(app.readinessProbe.httpGet.path).toBe('/readyz');
    expect(app.livenessProbe.httpGet.path).toBe('/healthz');
    expect(app.ports[0].containerPort).toBe(Number(expose));
    expect(app.resources.requests).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
    const pause = Number(app.lifecycle.preStop.exec.command[1]);
    const grace = Number(find('ConfigMap', 'wgs-config').data.SHUTDOWN_GRACE_SECONDS);
    // preStop, then the grace, then up to 5 s for the requests cut short to answer.
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(pause + grace + 5);
    expect(find('Service', 'wgs-app').spec.ports[0].targetPort).toBe(app.ports[0].name);
    expect(find('HorizontalPodAutoscaler', 'wgs-app').spec.scaleTargetRef.name).toBe('wgs-app');
    // The autoscaler owns the count (a fixed one would scale back at each apply); a drain leaves one serving.
    expect(find('Deployment', 'wgs-app').spec.replicas).toBeUndefined();
    expect(find('HorizontalPodAutoscaler', 'wgs-app').spec.minReplicas).toBeGreaterThanOrEqual(2);
    expect(find('PodDisruptionBudget', 'wgs-app').spec.selector.matchLabels).toEqual(
      find('Deployment', 'wgs-app').spec.selector.matchLabels,
    );
  });

  it('runs the worker and the migrate step with the commands compose.yaml gives them, on the same image', () => {
    const images = new Set(manifests.flatMap((m) => (m.spec?.template?.spec?.containers ?? []).map((c: { image: string }) => c.image)));
    expect(images.size).toBe(1);
    expect(find('Deployment', 'wgs-worker').spec.template.spec.containers[0].command).toEqual(compose.services.worker.command);
    expect(find('Job', 'wgs-migrate').spec.template.spec.containers[0].command).toEqual(compose.services.migrate.command);
    expect(find('Job', 'wgs-migrate').spec.activeDeadlineSeconds).toBeGreaterThan(0); // a stuck step fails, never hangs
  });

  it('names only settings the product reads (or provider keys) in its ConfigMap and Secret', () => {
    const names = [...Object.keys(find('ConfigMap', 'wgs-config').data), ...Object.keys(find('Secret', 'wgs-secrets').stringData)];
    for (const name of names) expect(SETTINGS.has(name) || name.endsWith('_API_KEY'), name).toBe(true);
  });
});

describe('deploy/kubernetes: the pods are locked down', () => {
  const workloads = manifests.filter((m) => m.spec?.template?.spec?.containers);

  it('no privilege escalation, a read-only root filesystem, no capabilities, the runtime default seccomp profile, no service-account token', () => {
    expect(workloads.map((m) => m.metadata.name).sort()).toEqual(['wgs-app', 'wgs-migrate', 'wgs-worker']);
    for (const workload of workloads) {
      const pod = workload.spec.template.spec;
      expect(pod.automountServiceAccountToken, workload.file).toBe(false);
      expect(pod.securityContext.runAsNonRoot, workload.file).toBe(true);
      for (const container of pod.containers) {
        const context = container.securityContext ?? {};
        expect(context.allowPrivilegeEscalation, workload.file).toBe(false);
        expect(context.readOnlyRootFilesystem, workload.file).toBe(true);
        expect(context.capabilities?.drop, workload.file).toEqual(['ALL']);
        expect(context.capabilities?.add, workload.file).toBeUndefined();
        expect((context.seccompProfile ?? pod.securityContext.seccompProfile)?.type, workload.file).toBe('RuntimeDefault');
      }
    }
  });

  it("the paths the product writes are volumes: /tmp and the data dir everywhere, Next's cache in the app", () => {
    const dataDir = dockerfile
      .getInstructions()
      .find((instruction) => instruction.getKeyword() === 'ENV' && instruction.getArgumentsContent()?.includes('WGS_DATA_DIR='))!
      .getArgumentsContent()!
      .match(/WGS_DATA_DIR=(\S+)/)![1]!;
    for (const workload of workloads) {
      const pod = workload.spec.template.spec;
      const volumes = new Map<string, Manifest>(pod.volumes.map((volume: Manifest) => [volume.name, volume]));
      const mounted = new Map<string, string>(
        pod.containers[0].volumeMounts.map((mount: { name: string; mountPath: string }) => [mount.mountPath, mount.name]),
      );
      const writable = ['/tmp', dataDir, ...(workload.metadata.name === 'wgs-app' ? ['/app/.next/cache'] : [])];
      for (const path of writable) {
        expect(mounted.has(path), `${workload.file}: ${path}`).toBe(true);
        expect(volumes.get(mounted.get(path)!)?.emptyDir, `${workload.file}: ${path}`).toBeDefined();
      }
    }
  });

  it("an egress NetworkPolicy lets every pod reach anything but every metadata address the product refuses, each cloud's included", () => {
    const policy = find('NetworkPolicy', 'wgs-egress');
    expect(policy.spec.policyTypes).toEqual(['Egress']);
    for (const workload of workloads)
      expect(workload.spec.template.metadata.labels, workload.file).toMatchObject(policy.spec.podSelector.matchLabels);
    const blocks: { cidr: string; except: string[] }[] = policy.spec.egress.flatMap((rule: Manifest) =>
      rule.to.map((peer: Manifest) => peer.ipBlock).filter(Boolean),
    );
    expect(blocks.map((block) => block.cidr)).toEqual(['0.0.0.0/0', '::/0']);
    // The excepted ranges are exactly the product's own list of metadata ranges...
    const excepted = blocks.flatMap((block) => block.except);
    expect(excepted.sort()).toEqual(METADATA_RANGES.map(([network, prefix]) => `${network}/${prefix}`).sort());
    // ... which covers the addresses every big cloud's metadata and credential services answer on.
    const refused = new BlockList();
    for (const range of excepted) {
      const [network, prefix] = range.split('/') as [string, string];
      refused.addSubnet(network, Number(prefix), isIP(network) === 6 ? 'ipv6' : 'ipv4');
    }
    const metadata = [
      '169.254.169.254', // AWS, GCP, Azure, Oracle, DigitalOcean, OpenStack, Hetzner
      '169.254.170.2', // ECS task credentials
      '169.254.170.23', // EKS Pod Identity
      '169.254.0.23', // Tencent Cloud
      '169.254.42.42', // Scaleway
      '100.100.100.200', // Alibaba Cloud
      '168.63.129.16', // Azure WireServer
      '192.0.0.192', // Oracle Cloud Classic
      'fd00:ec2::254', // AWS over IPv6
      'fd00:ec2::23', // EKS Pod Identity over IPv6
      'fd20:ce::254', // GCP over IPv6
      'fd00:c1::a9fe:a9fe', // Oracle over IPv6
      'fd00:42::42', // Scaleway over IPv6
      'fd00:a9fe:a9fe::1', // Akamai (Linode) over IPv6
      'fd00:100::100:200', // Alibaba over IPv6
    ];
    for (const address of metadata) expect(refused.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4'), address).toBe(true);
    // the other rule reaches the cluster's pods (DNS, in-cluster stores), which metadata endpoints are not
    const others = policy.spec.egress.flatMap((rule: Manifest) => rule.to.filter((peer: Manifest) => !peer.ipBlock));
    expect(others).toEqual([{ namespaceSelector: {} }]);
    expect(policy.spec.egress.every((rule: Manifest) => rule.ports === undefined)).toBe(true);
  });

  it("an ingress NetworkPolicy admits only the ingress controller's pods, only to the app's http port; the Ingress is the way in", () => {
    const policy = find('NetworkPolicy', 'wgs-ingress');
    expect(policy.spec.policyTypes).toEqual(['Ingress']);
    for (const workload of workloads)
      expect(workload.spec.template.metadata.labels, workload.file).toMatchObject(policy.spec.podSelector.matchLabels);
    expect(policy.spec.ingress).toHaveLength(1);
    const [rule] = policy.spec.ingress;
    expect(rule.from).toEqual([
      {
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } },
        podSelector: { matchLabels: { 'app.kubernetes.io/name': 'ingress-nginx', 'app.kubernetes.io/component': 'controller' } },
      },
    ]);
    const app = find('Deployment', 'wgs-app').spec.template.spec.containers[0];
    expect(rule.ports).toEqual([{ port: app.ports[0].name, protocol: 'TCP' }]);
    // The worker and the migrate step have no port of that name (no port at all): nothing reaches them.
    for (const name of ['wgs-worker', 'wgs-migrate']) {
      const workload = workloads.find((m) => m.metadata.name === name)!;
      expect(
        workload.spec.template.spec.containers.flatMap((c: Manifest) => c.ports ?? []),
        name,
      ).toEqual([]);
    }
    const ingress = find('Ingress', 'wgs-app');
    expect(ingress.spec.ingressClassName).toBe('nginx');
    const host = new URL(find('ConfigMap', 'wgs-config').data.NEXTAUTH_URL).host;
    expect(ingress.spec.rules.map((r: Manifest) => r.host)).toEqual([host]);
    expect(ingress.spec.tls[0].hosts).toEqual([host]);
    expect(ingress.spec.rules[0].http.paths[0].backend.service).toEqual({
      name: find('Service', 'wgs-app').metadata.name,
      port: { name: find('Service', 'wgs-app').spec.ports[0].name },
    });
  });

  it('trusts the proxies by their address ranges (TRUST_PROXY as CIDRs, never true or a count): the client behind them is the client', () => {
    const value = find('ConfigMap', 'wgs-config').data.TRUST_PROXY as string;
    const trust = parseProxyTrust(value);
    if (typeof trust === 'string' || trust.kind !== 'cidrs') throw new Error(`TRUST_PROXY ${value} names no ranges`);
    // The ingress controller's pod and the load balancer, one address in each range named.
    const [controller, balancer] = value.split(',').map((range) => `${range.split('/')[0]!.split('.').slice(0, 3).join('.')}.10`);
    expect(resolveClient(trust, controller, `198.51.100.99, 203.0.113.7, ${balancer}`)).toBe('203.0.113.7');
    expect(resolveClient(trust, controller, '203.0.113.8')).toBe('203.0.113.8');
    // A connection from outside the ranges is the client, whatever it claims.
    expect(resolveClient(trust, '203.0.113.9', '10.244.0.1')).toBe('203.0.113.9');
  });

  it('Redis is reached with a password (REDIS_URL), which production refuses to leave at its example value', () => {
    const url = find('Secret', 'wgs-secrets').stringData.REDIS_URL as string;
    expect(new URL(url).password).not.toBe('');
    expect(placeholderSecrets({ NODE_ENV: 'production', REDIS_URL: url })).toEqual([expect.stringMatching(/^REDIS_URL \(its password is/)]);
  });

  it("pins the image to a version, never latest, and no file speaks of tsx's compile cache (the image runs dist/ on plain node)", () => {
    for (const workload of workloads)
      for (const container of workload.spec.template.spec.containers) {
        expect(container.image, workload.file).toMatch(/^[a-z0-9.\-/]+:\d+\.\d+\.\d+(@sha256:[0-9a-f]{64})?$/);
        expect(container.image, workload.file).not.toMatch(/:latest\b/);
      }
    for (const file of readdirSync(K8S)) expect(readFileSync(join(K8S, file), 'utf8'), file).not.toMatch(/\btsx\b|compile cache/);
    expect(readFileSync(join(ROOT, 'docs', 'deploy.md'), 'utf8')).not.toMatch(/compile cache/);
  });
});

describe('Dockerfile', () => {
  it('runs as the non-root user, who cannot write the build it serves (.next) but owns .next/cache, for the image optimizer', () => {
    const instructions = dockerfile.getInstructions();
    const runtimeStart = instructions.findLastIndex((instruction) => instruction.getKeyword() === 'FROM');
    const runtime = instructions.slice(runtimeStart);
    expect(
      runtime
        .filter((instruction) => instruction.getKeyword() === 'USER')
        .at(-1)
        ?.getArgumentsContent(),
    ).toBe('node');
    const copiesOfNext = runtime.filter(
      (instruction) => instruction.getKeyword() === 'COPY' && /\.next\b/.test(instruction.getArgumentsContent() ?? ''),
    );
    expect(copiesOfNext.length).toBeGreaterThan(0);
    for (const copy of copiesOfNext) expect(copy.getTextContent()).not.toMatch(/--chown|--chmod/);
    const runs = runtime.filter((instruction) => instruction.getKeyword() === 'RUN').map((run) => run.getTextContent() ?? '');
    for (const run of runs) expect(run).not.toMatch(/(chown|chmod)[^&;]*\.next(?!\/cache\b)/);
    const ownsCache = /mkdir -p [^&;]*\/app\/\.next\/cache\b[^;]*&& chown node:node [^&;]*\/app\/\.next\/cache\b/;
    expect(runs.some((run) => ownsCache.test(run))).toBe(true);
  });
});

describe('the production commands', () => {
  const packageJson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
  };
  const nodeCommand = (script: string) => ['node', ...startCommand(ROOT, script).args];

  it('run plain node on the compiled entry points in dist/, the same in package.json, the image, compose and Kubernetes', () => {
    expect(packageJson.scripts.build).toContain('scripts/build-server.ts');
    expect(cmd).toEqual(nodeCommand('start:production'));
    expect(compose.services.worker.command).toEqual(nodeCommand('worker:production'));
    expect(compose.services.migrate.command).toEqual(nodeCommand('db:migrate:production'));
    // The image's ENV carries the start script's malloc settings.
    const env = Object.fromEntries(
      dockerfile
        .getInstructions()
        .filter((instruction): instruction is Env => instruction instanceof Env)
        .flatMap((instruction) => instruction.getProperties())
        .map((property) => [property.getName(), property.getValue()]),
    );
    expect(env).toMatchObject(startCommand(ROOT, 'start:production').env);
  });

  it('npm start and the production command run as production whatever NODE_ENV the shell has (development would loosen the CSP)', () => {
    for (const name of ['start', 'start:production']) expect(startCommand(ROOT, name).env).toMatchObject({ NODE_ENV: 'production' });
  });

  it("the servers' scripts exec node, so a SIGTERM to npm reaches the server (dash would keep it from node, which went on serving)", () => {
    for (const name of ['start', 'start:production', 'worker:production'])
      expect(packageJson.scripts[name]).toMatch(/^(?:[A-Z_]+=\S+ )*exec node /);
    // The development worker and server exec tsx, which hands the signal on to its node (outside audit: `npm run worker` went on working).
    for (const name of ['worker', 'dev']) expect(packageJson.scripts[name]).toMatch(/^exec tsx /);
  });

  it('need no TypeScript loader at run time: tsx is a dev dependency and no production command uses it', () => {
    expect(packageJson.dependencies.tsx).toBeUndefined();
    expect(packageJson.devDependencies.tsx).toBeDefined();
    const production = [
      ...['start:production', 'worker:production', 'db:migrate:production'].map((name) => packageJson.scripts[name]!),
      cmd.join(' '),
      ...['worker', 'migrate'].map((name) => compose.services[name].command.join(' ')),
    ];
    for (const command of production) expect(command).not.toMatch(/tsx|\.ts\b/);
  });
});

describe('compose.yaml and .env.example', () => {
  it('runs PostgreSQL, Redis, an S3-compatible store, a one-shot migrate, two app instances behind a proxy and a worker', () => {
    const services = compose.services;
    for (const name of ['postgres', 'redis', 'minio', 'bucket', 'migrate', 'app1', 'app2', 'worker', 'proxy'])
      expect(services[name], name).toBeDefined();
    expect(services.migrate.restart).toBe('no');
    for (const app of ['app1', 'app2', 'worker']) {
      expect(services[app].depends_on.migrate.condition).toBe('service_completed_successfully');
      expect(services[app].image).toBe(services.migrate.image);
    }
    expect(services.app1.command).toBeUndefined(); // the image's CMD
    // A worker's 60 s to hand its jobs back (static review: it had the apps' 40 s); connections for two apps and a worker.
    expect(Number.parseInt(services.worker.stop_grace_period, 10)).toBeGreaterThan(60);
    expect(services.postgres.command.join(' ')).toMatch(/max_connections=(\d{3,})/);
    const nginx = readFileSync(join(ROOT, 'deploy', 'compose', 'nginx.conf'), 'utf8');
    expect(nginx).toContain('server app1:3000');
    expect(nginx).toContain('server app2:3000');
  });

  it('reads every ${VARIABLE} from .env, and .env.example lists each one with the settings the production command requires', () => {
    const text = readFileSync(join(ROOT, 'compose.yaml'), 'utf8');
    const uses = [...text.matchAll(/\$\{([A-Z_0-9]+)(:[-?][^}]*)?\}/g)].map((match) => ({ name: match[1]!, fallback: match[2] ?? '' }));
    const referenced = new Set(uses.map((use) => use.name));
    // A variable with a default (${NAME:-default}) may be left out of .env; every other one is listed.
    for (const { name, fallback } of uses) if (!fallback.startsWith(':-')) expect(envExample.has(name), name).toBe(true);
    for (const name of ['SIGNING_SECRET', 'NEXTAUTH_SECRET', 'NEXTAUTH_URL', 'PROVIDER_KEYS_SECRET', 'S3_BUCKET'])
      expect(envExample.has(name), name).toBe(true);
    for (const name of envExample.keys()) expect(SETTINGS.has(name) || referenced.has(name), name).toBe(true);
    // No real secret: every secret of the example is a placeholder.
    for (const [name, value] of envExample) if (/SECRET|PASSWORD/.test(name)) expect(value, name).toMatch(/^CHANGE-ME/);
  });
});

describe('compose.yaml keeps its secrets where they belong', () => {
  const services = compose.services;

  it('publishes only the proxy, on 127.0.0.1 unless PUBLISH_ADDRESS says otherwise', () => {
    const published = Object.entries(services).filter(([, service]) => service.ports);
    expect(published.map(([name]) => name)).toEqual(['proxy']);
    expect(services.proxy.ports).toHaveLength(1);
    const [address, hostPort, containerPort] = String(services.proxy.ports[0]).split(/:(?![^{]*\})/);
    expect(address).toBe('${PUBLISH_ADDRESS:-127.0.0.1}');
    expect(hostPort).toBe('8080');
    const nginx = readFileSync(join(ROOT, 'deploy', 'compose', 'nginx.conf'), 'utf8');
    expect(nginx).toContain(`listen ${containerPort} default_server;`);
    // presigned URLs name S3_ENDPOINT (.env's, else this): the published proxy passes minio.localhost to MinIO
    expect(services.app1.environment.S3_ENDPOINT).toBe(`\${S3_ENDPOINT:-http://minio.localhost:${hostPort}}`);
    expect(services.proxy.networks.default.aliases).toContain('minio.localhost');
    expect(nginx).toMatch(/upstream minio \{[^}]*server minio:9000 resolve;/);
    expect(nginx).toMatch(/server_name minio\.localhost;[\s\S]*proxy_pass http:\/\/minio;/);
  });

  it("gives the app a scoped object-store user made by the init step, never MinIO's root credentials", () => {
    for (const app of ['app1', 'app2', 'worker']) {
      const env = services[app].environment;
      expect(env.S3_ACCESS_KEY_ID, app).toBe('${MINIO_APP_USER}');
      expect(env.S3_SECRET_ACCESS_KEY, app).toBe('${MINIO_APP_PASSWORD}');
      // env_file hands the app all of .env: the root credentials are blanked over it
      expect(services[app].env_file, app).toBe('.env');
      expect(env.MINIO_ROOT_USER, app).toBe('');
      expect(env.MINIO_ROOT_PASSWORD, app).toBe('');
    }
    expect(services.migrate.environment.MINIO_ROOT_PASSWORD).toBe('');
    const init = services.bucket.entrypoint.join('\n');
    expect(init).toContain('mc admin user add store "$$MINIO_APP_USER" "$$MINIO_APP_PASSWORD"');
    expect(init).toContain('mc admin policy attach store wgs-app --user "$$MINIO_APP_USER"');
    const policy = JSON.parse(
      init.slice(init.indexOf('<<POLICY\n') + 9, init.indexOf('\nPOLICY')).replaceAll('$$S3_BUCKET', 'wgs-objects'),
    ) as {
      Statement: { Action: string[]; Resource: string[] }[];
    };
    const resources = policy.Statement.flatMap((statement) => statement.Resource);
    expect(resources.every((resource) => resource === 'arn:aws:s3:::wgs-objects' || resource === 'arn:aws:s3:::wgs-objects/*')).toBe(true);
    expect(
      policy.Statement.flatMap((statement) => statement.Action).filter((action) => /\*|admin:|DeleteBucket|PutBucketPolicy/.test(action)),
    ).toEqual([]);
    expect(services.minio.ports).toBeUndefined();
  });

  it('Redis asks for REDIS_PASSWORD, which the app reaches it with (REDIS_URL); compose stops without one', () => {
    const required = '${REDIS_PASSWORD:?set REDIS_PASSWORD in .env}';
    const command: string[] = services.redis.command;
    expect(command[0]).toBe('redis-server');
    expect(command[command.indexOf('--requirepass') + 1]).toBe(required);
    expect(services.redis.environment.REDISCLI_AUTH).toBe(required); // the health check's redis-cli, no password in its arguments
    expect(services.redis.healthcheck.test.join(' ')).not.toContain('REDIS_PASSWORD');
    expect(services.redis.ports).toBeUndefined();
    // Its counts outlive a restart (Redis audit: one restarted empty let a key take twice its limit in a minute).
    expect(command[command.indexOf('--appendonly') + 1]).toBe('yes');
    expect(services.redis.volumes).toEqual(['redis-data:/data']);
    for (const app of ['app1', 'app2', 'worker']) {
      expect(services[app].environment.REDIS_URL, app).toBe(`redis://:${required}@redis:6379`);
      expect(services[app].environment.REDIS_PASSWORD, app).toBe(''); // in REDIS_URL only
    }
    expect(envExample.get('REDIS_PASSWORD')).toMatch(/^CHANGE-ME/);
  });

  it('reads TRUST_PROXY from .env, by default 1 (nginx, the one proxy), which appends the address it received each request from', () => {
    for (const app of ['app1', 'app2', 'worker']) expect(services[app].environment.TRUST_PROXY, app).toBe('${TRUST_PROXY:-1}');
    expect(envExample.get('TRUST_PROXY')).toBe('1');
    const trust = parseProxyTrust('1');
    expect(trust).toEqual({ kind: 'hops', hops: 1 });
    const proxies = Object.entries(services).filter(([, service]) => /(^|\/)nginx:/.test(service.image ?? ''));
    expect(proxies.map(([name]) => name)).toEqual(['proxy']);
    const nginx = readFileSync(join(ROOT, 'deploy', 'compose', 'nginx.conf'), 'utf8');
    expect(nginx).toContain('proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;');
    // What a client writes itself stays in front of the address nginx appends, so it changes nothing.
    if (typeof trust === 'string') throw new Error(trust);
    expect(resolveClient(trust, '172.18.0.9', '10.1.2.3, 198.51.100.7')).toBe('198.51.100.7');
  });

  it("pins every image it pulls to a version and that version's digest; the one it builds has a version tag; none is latest", () => {
    const built = new Set(
      Object.values(services)
        .filter((service) => service.build)
        .map((service) => service.image as string),
    );
    for (const [name, service] of Object.entries(services)) {
      const image = service.image as string;
      expect(image, name).not.toMatch(/:latest\b/);
      if (built.has(image)) expect(image, name).toMatch(/^[a-z0-9.\-/]+:[a-z0-9.-]+$/);
      else expect(image, name).toMatch(/^[a-z0-9.\-/]+:[A-Za-z0-9.\-_]*\d[A-Za-z0-9.\-_]*@sha256:[0-9a-f]{64}$/);
    }
    const bases = dockerfile
      .getInstructions()
      .filter((instruction) => instruction.getKeyword() === 'FROM')
      .map((instruction) => instruction.getArgumentsContent()!.split(/\s+/)[0]!);
    expect(new Set(bases).size).toBe(1);
    expect(bases[0]).toMatch(/^node:\d+\.\d+\.\d+-bookworm-slim@sha256:[0-9a-f]{64}$/);
  });

  it('every secret of the example files is one production refuses, and is known as an example value', () => {
    const secretExample = parse(readFileSync(join(K8S, 'secret.example.yaml'), 'utf8')) as { stringData: Record<string, string> };
    const examples = { ...Object.fromEntries(envExample), ...secretExample.stringData };
    const secrets = Object.entries(examples).filter(([name]) => /SECRET|PASSWORD|_API_KEY|TOKEN/.test(name));
    expect(secrets.length).toBeGreaterThan(5);
    for (const [name, value] of secrets) expect(EXAMPLE_SECRET_VALUES.has(value), name).toBe(true);
    const refused = placeholderSecrets({ NODE_ENV: 'production', ...examples }).map((problem) => problem.split(' ')[0]);
    for (const [name] of secrets) expect(refused, name).toContain(name);
    expect(refused).toContain('DATABASE_URL'); // its password is the example's
    expect(refused).toContain('REDIS_URL'); // likewise
  });
});
