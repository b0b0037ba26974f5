// A flame graph of where the server's main thread spends its CPU on a paid path under load: the
// product started as the bench starts it, plus `--cpu-prof`, loaded closed loop with 50 connections
// (or open loop at FLAME_RATE req/s), its profile cut to the measured window and to busy samples
// (cpu-profile.ts), drawn by speedscope ("left heavy": each call stack merged, heaviest first) in
// Debian's headless Chromium and saved as a PNG; the cut profile stays in a temporary folder.
// Prints the window's req/s and CPU per request, and the functions with the most self time.
// Run: npx tsx scripts/bench/flame-graph.ts   (FLAME_PATH=provider|local, FLAME_RATE=150,
//      FLAME_SECONDS=20, FLAME_OUT=docs/img/flame-provider.png)
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from '@playwright/test';
import { CHROMIUM_PATH } from '../../tests/e2e/support/chromium';
import { busyWindow, monotonicMicros, topSelfTime, type CpuProfile } from './cpu-profile';
import { measureWindow, warmUp } from './load';
import { runStartingProcesses, stopChild } from './processes';
import { paidLoad } from './runner';
import { ROOT } from './settings';
import { productEnv, startProduct, startStack } from './stack';

const PATH = process.env.FLAME_PATH ?? 'provider';
const RATE = process.env.FLAME_RATE ? Number(process.env.FLAME_RATE) : undefined;
const SECONDS = Number(process.env.FLAME_SECONDS ?? 20);
const OUT = resolve(process.env.FLAME_OUT ?? `docs/img/flame-${PATH}${RATE ? `-at-${RATE}` : ''}.png`);
const SPEEDSCOPE = join(ROOT, 'node_modules/speedscope/dist/release/index.html');

/** Draws `profile` as speedscope's left-heavy view, 1600 x 900 px. */
async function draw(profile: CpuProfile, title: string, dir: string): Promise<void> {
  // speedscope reads a local profile from a script that hands it over (what its own CLI writes).
  const script = join(dir, 'profile.js');
  const base64 = Buffer.from(JSON.stringify(profile)).toString('base64');
  writeFileSync(script, `speedscope.loadFileFromBase64(${JSON.stringify(`${title}.cpuprofile`)}, ${JSON.stringify(base64)})`);
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--enable-unsafe-swiftshader'], // speedscope draws with WebGL: software rendering
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1600, height: 900 } });
    // speedscope decodes its hash with decodeURIComponent: spaces as %20, not URLSearchParams' +
    const hash = `localProfilePath=${encodeURIComponent(script)}&view=left-heavy&title=${encodeURIComponent(title)}`;
    await page.goto(`file://${SPEEDSCOPE}#${hash}`);
    await page.getByText('Left Heavy').waitFor();
    await page.waitForTimeout(1000); // the frames are drawn on the next animation frames
    await page.screenshot({ path: OUT });
  } finally {
    await browser.close();
  }
}

async function main(): Promise<void> {
  if (!['local', 'provider'].includes(PATH)) throw new Error(`FLAME_PATH: local or provider, not "${PATH}"`);
  const stack = await startStack();
  const profileDir = mkdtempSync(join(tmpdir(), 'wgs-flame-'));
  const env: Record<string, string> = { ...productEnv(), DATABASE_URL: stack.databaseUrl };
  env.NODE_OPTIONS = [env.NODE_OPTIONS, `--cpu-prof --cpu-prof-dir=${profileDir}`].filter(Boolean).join(' ');
  const profiled = await startProduct(stack.baseEnv, env);
  const load = paidLoad(profiled.url, stack.keys[PATH === 'provider' ? 'provider' : 'product'], { overallRate: RATE, duration: SECONDS });
  const name = `${PATH} path ${RATE ? `at ${RATE} req/s` : 'closed loop'}`;
  await warmUp(name, load);
  const from = monotonicMicros();
  const window = await measureWindow(name, load, profiled.child.pid, stack.postmasterPid);
  const to = monotonicMicros();
  await stopChild(profiled.child); // --cpu-prof writes the profile as the process exits
  // CPU.<date>.<time>.<pid>.<thread>.<sequence>.cpuprofile: the server's, not a child's
  const file = readdirSync(profileDir).find((entry) => entry.includes(`.${profiled.child.pid}.`) && entry.endsWith('.cpuprofile'));
  if (!file) throw new Error(`the profiled product wrote no profile to ${profileDir}`);
  const busy = busyWindow(JSON.parse(readFileSync(join(profileDir, file), 'utf8')) as CpuProfile, from, to);
  const kept = join(profileDir, 'busy.cpuprofile');
  writeFileSync(kept, JSON.stringify(busy));
  const perRequest = (ms: number) => (ms / window.run.total).toFixed(2);
  const mainMs = (busy.endTime - busy.startTime) / 1000;
  console.log(
    `${name}: ${window.run.rps.toFixed(0)} req/s, p99 ${window.run.p99} ms; CPU ms per request: server ${perRequest(window.spent.server)} (main thread ${perRequest(window.spent.main)}, ${perRequest(mainMs)} in the profile), PostgreSQL ${perRequest(window.spent.database)}`,
  );
  console.log('self time, share of the main thread busy:');
  for (const { frame, share } of topSelfTime(busy, 15)) console.log(`  ${(share * 100).toFixed(1).padStart(5)}%  ${frame}`);
  await draw(busy, name, profileDir);
  console.log(`flame graph: ${OUT}\nits profile (open it in speedscope or Chrome DevTools): ${kept}`);
  await stack.stats.end();
}

runStartingProcesses(main);
