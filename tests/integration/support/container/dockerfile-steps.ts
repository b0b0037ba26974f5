import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { Copy, DockerfileParser, Env, JSONInstruction, type Instruction } from 'dockerfile-ast';

// Docker cannot run here, so the image is built the way Docker would build it, into scratch
// directories: the Dockerfile is parsed (dockerfile-ast), every stage gets a root directory of
// its own, its COPY steps copy from the build context (honouring .dockerignore) or from an
// earlier stage, and each RUN step is performed by the one local action that does what the
// command does (a RUN this file does not know fails the build, so the image cannot gain a step
// nobody performed). What stands in for what is listed in RUN_STEPS.

export interface BuiltImage {
  /** The final stage's root directory (what the image's / is). */
  root: string;
  workdir: string;
  env: Record<string, string>;
  cmd: string[];
  user: string | undefined;
  expose: string[];
  healthcheck: string | undefined;
  /** The FROM image of each stage, in order. */
  bases: string[];
  /** Every RUN command, in order, as written. */
  runs: string[];
}

interface Stage {
  name: string;
  root: string;
  workdir: string;
  env: Record<string, string>;
}

export interface BuildContext {
  /** The build context (the repository). */
  context: string;
  /** Where the stages' roots are made. */
  scratch: string;
  /** The repository's node_modules, installed from the same package-lock.json (for `npm ci`). */
  installedModules: string;
  /** The repository's Next build of the same sources (for `npm run build`). */
  nextBuild: string;
  /** The repository's server bundle (dist/) of the same sources (for `npm run build`). */
  serverBundle: string;
}

/** A `.dockerignore` as a predicate on context-relative paths (patterns: names, paths, `*`). */
export function dockerignore(context: string): (path: string) => boolean {
  const file = join(context, '.dockerignore');
  const patterns = existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line && !line.startsWith('#'))
    : [];
  if (patterns.some((pattern) => pattern.startsWith('!'))) throw new Error('.dockerignore exceptions (!) are not handled here');
  const expressions = patterns.map(
    (pattern) =>
      new RegExp(
        `^${pattern
          .replace(/^\//, '')
          .replace(/[.+^${}()|[\]\\]/g, '\\$&')
          .replaceAll('*', '[^/]*')}(/.*)?$`,
      ),
  );
  return (path) => expressions.some((expression) => expression.test(path));
}

/** `cp -al`: hard links, so the 1 GB of node_modules takes seconds; nothing here writes into a linked file. */
function linkCopy(source: string, target: string): void {
  mkdirSync(dirname(target), { recursive: true });
  const copied = spawnSync('cp', ['-al', source, target], { encoding: 'utf8' });
  if (copied.status !== 0) throw new Error(`cp -al ${source} ${target}: ${copied.stderr}`);
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): void {
  const result = spawnSync(command, args, { cwd, env, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${result.stdout}\n${result.stderr}`);
}

/** npm run as a RUN step runs it: the stage's environment, no test runner's. */
function npmEnv(stage: Stage): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, ...stage.env, npm_config_offline: 'true' } as unknown as NodeJS.ProcessEnv;
}

/**
 * Each RUN command of the Dockerfile and what performs it here. `npm ci` installs exactly the
 * tree package-lock.json pins: the repository's node_modules, installed from the identical lock
 * file, is linked in and the lifecycle script npm ci runs (postinstall: the Prisma client) runs
 * for real. `npm run build` is the repository's builds of the identical sources, the Next app
 * and the server bundle in dist/ (ensureBuild made both). `npm prune`, `rm` and `mkdir` run as written (offline). apt-get's ffmpeg is
 * Debian's, installed on this machine (.ci/run); `chown` is the one step left out (the test
 * does not run as the image's user).
 */
const RUN_STEPS: Record<string, (stage: Stage, build: BuildContext) => void> = {
  'npm ci --no-audit --no-fund --loglevel=warn': (stage, build) => {
    const app = hostPath(stage, stage.workdir);
    const lock = readFileSync(join(app, 'package-lock.json'), 'utf8');
    if (lock !== readFileSync(join(build.context, 'package-lock.json'), 'utf8')) throw new Error('package-lock.json differs');
    linkCopy(build.installedModules, join(app, 'node_modules'));
    // npm rewrites its own record of the tree: a copy of it, not a link to the repository's.
    const record = join(app, 'node_modules', '.package-lock.json');
    rmSync(record);
    cpSync(join(build.installedModules, '.package-lock.json'), record);
    run(process.execPath, ['--import', 'tsx', 'scripts/prisma-generate.ts'], app, npmEnv(stage));
  },
  'npm run build': (stage, build) => {
    const app = hostPath(stage, stage.workdir);
    if (!existsSync(join(build.nextBuild, 'export-marker.json'))) throw new Error(`no complete build in ${build.nextBuild}`);
    if (!existsSync(join(build.serverBundle, 'build-complete.json'))) throw new Error(`no complete bundle in ${build.serverBundle}`);
    linkCopy(build.nextBuild, join(app, '.next'));
    linkCopy(build.serverBundle, join(app, 'dist'));
  },
  'npm prune --omit=dev --no-audit --no-fund --loglevel=warn': (stage) => {
    run('npm', ['prune', '--omit=dev', '--no-audit', '--no-fund', '--loglevel=warn'], hostPath(stage, stage.workdir), npmEnv(stage));
  },
  'rm -rf .next/cache': (stage) => rmSync(join(hostPath(stage, stage.workdir), '.next', 'cache'), { recursive: true, force: true }),
  'apt-get update && apt-get install -y --no-install-recommends ffmpeg && rm -rf /var/lib/apt/lists/*': () => {
    const found = spawnSync('dpkg-query', ['-W', '-f=${Status}', 'ffmpeg'], { encoding: 'utf8' });
    if (!found.stdout.includes('install ok installed') || !existsSync('/usr/bin/ffmpeg')) {
      throw new Error("Debian's ffmpeg is not installed on this machine: apt-get install -y ffmpeg (.ci/run does)");
    }
  },
  'mkdir -p /app/data /app/.next/cache && chown node:node /app/data /app/.next/cache': (stage) => {
    for (const dir of ['/app/data', '/app/.next/cache']) mkdirSync(hostPath(stage, dir), { recursive: true });
  },
};

/** Where a path of the stage's filesystem is on this machine. */
function hostPath(stage: Stage, path: string): string {
  return join(stage.root, posix.isAbsolute(path) ? path : posix.join(stage.workdir, path));
}

function flag(instruction: Copy, name: string): string | undefined {
  return (
    instruction
      .getFlags()
      .find((f) => f.getName() === name)
      ?.getValue() ?? undefined
  );
}

interface CopyPlan {
  /** Stages no later instruction runs in. */
  finished: Set<string>;
  /** The paths later COPY --from instructions take from a stage. */
  laterSources: (stage: string) => string[];
}

function copyStep(
  instruction: Copy,
  stage: Stage,
  stages: Map<string, Stage>,
  build: BuildContext,
  { finished, laterSources }: CopyPlan,
): void {
  const args = instruction.getArguments().map((argument) => argument.getValue());
  const destination = args.pop()!;
  const from = flag(instruction, 'from');
  const source = from ? stages.get(from) : undefined;
  if (from && !source) throw new Error(`COPY --from=${from}: no such stage`);
  const ignored = dockerignore(build.context);
  const intoDirectory = destination.endsWith('/') || args.length > 1;
  for (const arg of args) {
    const origin = source ? hostPath(source, arg) : join(build.context, arg);
    if (!existsSync(origin)) throw new Error(`COPY ${arg}: not found${from ? ` in stage ${from}` : ' in the context'}`);
    const target = hostPath(stage, intoDirectory ? posix.join(destination, posix.basename(arg)) : destination);
    if (
      source &&
      from &&
      finished.has(from) &&
      !laterSources(from).some((later) => later.startsWith(`${arg}/`) || arg.startsWith(`${later}/`) || later === arg)
    ) {
      // A finished stage's files that nothing copies again: moved, which leaves the same image.
      mkdirSync(dirname(target), { recursive: true });
      renameSync(origin, target);
    } else if (source) {
      linkCopy(origin, target);
    } else if (statSync(origin).isDirectory()) {
      cpSync(origin, target, {
        recursive: true,
        filter: (path) => {
          const inContext = relative(build.context, path);
          return inContext === '' || !ignored(inContext);
        },
      });
    } else {
      if (ignored(relative(build.context, origin))) throw new Error(`COPY ${arg}: excluded by .dockerignore`);
      mkdirSync(dirname(target), { recursive: true });
      cpSync(origin, target);
    }
  }
}

export function buildImage(dockerfile: string, build: BuildContext): BuiltImage {
  const parsed = DockerfileParser.parse(readFileSync(dockerfile, 'utf8'));
  const stages = new Map<string, Stage>();
  const image: Omit<BuiltImage, 'root' | 'workdir' | 'env'> = {
    cmd: [],
    user: undefined,
    expose: [],
    healthcheck: undefined,
    bases: [],
    runs: [],
  };
  let stage: Stage | undefined;
  const instructions = parsed.getInstructions() as Instruction[];
  const finished = new Set<string>();
  let position = 0;
  const laterSources = (from: string) =>
    instructions
      .slice(position + 1)
      .filter((later): later is Copy => later instanceof Copy && flag(later, 'from') === from)
      .flatMap((later) =>
        later
          .getArguments()
          .slice(0, -1)
          .map((argument) => argument.getValue()),
      );
  for (const [index, instruction] of instructions.entries()) {
    position = index;
    const keyword = instruction.getKeyword();
    const content = instruction.getArgumentsContent() ?? '';
    if (keyword === 'FROM') {
      const [base, as, name] = content.split(/\s+/);
      if (as?.toUpperCase() !== 'AS' || !name) throw new Error(`FROM ${content}: every stage is named`);
      if (stage) finished.add(stage.name);
      image.bases.push(base!);
      stage = { name, root: join(build.scratch, name), workdir: '/', env: {} };
      mkdirSync(stage.root, { recursive: true });
      stages.set(name, stage);
      Object.assign(image, { cmd: [], user: undefined, expose: [], healthcheck: undefined });
      continue;
    }
    if (!stage) throw new Error(`${keyword} before FROM`);
    if (keyword === 'WORKDIR') {
      stage.workdir = content;
      mkdirSync(hostPath(stage, content), { recursive: true });
    } else if (instruction instanceof Env) {
      for (const property of instruction.getProperties()) stage.env[property.getName()] = property.getValue() ?? '';
    } else if (instruction instanceof Copy) {
      const began = Date.now();
      copyStep(instruction, stage, stages, build, { finished, laterSources });
      if (process.env.WGS_IMAGE_STEP_TIMES) process.stdout.write(`COPY ${content}: ${Date.now() - began} ms\n`);
    } else if (keyword === 'RUN') {
      image.runs.push(content);
      const step = RUN_STEPS[content];
      if (!step) throw new Error(`RUN ${content}: no step performs this command (tests/integration/support/container/dockerfile-steps.ts)`);
      const began = Date.now();
      step(stage, build);
      if (process.env.WGS_IMAGE_STEP_TIMES) process.stdout.write(`RUN ${content}: ${Date.now() - began} ms\n`);
    } else if (keyword === 'USER') {
      image.user = content;
    } else if (keyword === 'EXPOSE') {
      image.expose.push(...content.split(/\s+/));
    } else if (keyword === 'HEALTHCHECK') {
      image.healthcheck = content;
    } else if (keyword === 'CMD' && instruction instanceof JSONInstruction) {
      image.cmd = instruction.getJSONStrings().map((value) => value.getJSONValue());
    } else {
      throw new Error(`${keyword} ${content}: not an instruction this build handles`);
    }
  }
  if (!stage) throw new Error('no stage');
  return { ...image, root: stage.root, workdir: stage.workdir, env: stage.env };
}
