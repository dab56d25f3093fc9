// Browser test of the tiles viewer (app/viewer/tiles.html) as a user runs it: the real planetgen
// bakes a small region of a small planet (`planetgen tiles`), `planetgen view` serves the folder,
// and Debian's chromium (through playwright-core, pinned in package-lock.json) checks that
//   - the page is the tiles viewer, streaming with the pinned 3D Tiles renderer (the version
//     the server hands out is the one app/viewer/package.json pins), with no console error,
//     failed request or page error,
//   - the planet is the tileset's, not Earth (its radius from the 3DTILES_ellipsoid extension),
//   - at each of the three altitude presets (orbit, region, ground) tiles are loaded, the canvas
//     is not blank (luminance variance) and the three pictures differ; the ground preset stands
//     2 to 50 m above the ground with tiles of the finest baked level drawn, which orbit is not,
//   - toggling the tile edges (key E) changes the pixels.
// Screenshots go to OUT_DIR: tiles_viewer_{orbit,region,ground}.png, tiles_viewer_ground_edges.png,
// tiles_viewer_region_edges.png.
//
// usage: node tiles_viewer_test.mjs PLANETGEN_BINARY OUT_DIR
// Exit code 0 when every check passes, 1 otherwise, 77 (skipped) when chromium is missing.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

import { canvasStats as canvasStatsOf, changedFraction } from './canvas.mjs';

const [planetgen, outDir] = process.argv.slice(2);
if (!planetgen || !outDir) {
  console.error('usage: node tiles_viewer_test.mjs PLANETGEN_BINARY OUT_DIR');
  process.exit(2);
}
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';
if (!existsSync(chromiumPath)) {
  console.log(`skipped: ${chromiumPath} not found (apt-get install chromium)`);
  process.exit(77);
}
mkdirSync(outDir, { recursive: true });
const here = path.dirname(fileURLToPath(import.meta.url));
const pinned = JSON.parse(readFileSync(path.join(here, '../../app/viewer/package.json')))
  .dependencies['3d-tiles-renderer'];

let passed = 0;
let failed = 0;
function check(ok, what) {
  if (ok) {
    ++passed;
    console.log(`ok: ${what}`);
  } else {
    ++failed;
    console.log(`FAILED: ${what}`);
  }
}

// A small planet (f = 32, 2000 km, tiles of 32 steps) and a 4 km region on a mountain flank at
// 100 m: eleven levels (0 to 10, 67.6 m), about 150 tiles, a few seconds.
const config = path.join(outDir, 'small.toml');
writeFileSync(config, '[planet]\nseed = 9\nfrequency = 32\nradius_m = 2000000.0\n' +
  '[weather]\nmode = "uniform"\n[fluvial]\nreroutings = 1\n[tiles]\ntile_edge = 32\n');
const tilesDir = path.join(outDir, 'tiles');
rmSync(tilesDir, { recursive: true, force: true });
const bake = spawnSync(planetgen, ['tiles', '--config', config, '--center', '64,-120',
  '--radius-km', '4', '--spacing-m', '100', '--out', tilesDir, '--threads', '2', '--quiet'],
{ encoding: 'utf8' });
check(bake.status === 0, `planetgen tiles bakes the region (exit ${bake.status} ${bake.stderr})`);
if (bake.status !== 0) process.exit(1);
const tileset = JSON.parse(readFileSync(path.join(tilesDir, 'tileset.json')));
const finest = tileset.extras.planetgen.finest_level;
console.log(`baked: finest level ${finest}, ${tileset.extras.planetgen.finest_spacing_m} m`);

const server = spawn(planetgen, ['view', tilesDir, '--port', '0'],
  { stdio: ['ignore', 'pipe', 'inherit'] });
let text = '';
const url = await new Promise((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error('the server did not start in 60 s')), 60000);
  server.stdout.on('data', (data) => {
    text += data;
    const match = text.match(/viewer at (\S+)/);
    if (match) {
      clearTimeout(timer);
      resolve(match[1]);
    }
  });
  server.on('exit', (code) => reject(new Error(`planetgen view exited with ${code}`)));
});
console.log(`server: ${url}`);

const browser = await chromium.launch({
  executablePath: chromiumPath,
  headless: true,
  args: ['--headless', '--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
         '--disable-background-networking', '--disable-component-update', '--disable-sync',
         '--no-first-run'],
});
const problems = [];
try {
  const page = await browser.newPage({ viewport: { width: 960, height: 640 } });
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) =>
    problems.push(`request failed: ${request.url()}: ${request.failure()?.errorText}`));
  const rendererRequests = [];
  page.on('request', (request) => {
    if (request.url().includes('/node_modules/3d-tiles-renderer/')) rendererRequests.push(request.url());
  });

  await page.goto(url, { waitUntil: 'load' });
  await page.waitForFunction(() => document.body.dataset.ready === '1', null, { timeout: 120000 });
  check(true, 'the tiles viewer reports ready (the orbit view loaded)');
  check(await page.title() === 'planetgen tiles viewer', '"/" of a tiles folder is the tiles viewer');
  check(rendererRequests.some((u) => u.endsWith('/build/index.three.js')),
    'the page imports the renderer from node_modules/3d-tiles-renderer');
  const served = await page.evaluate(async () =>
    (await (await fetch('node_modules/3d-tiles-renderer/package.json')).json()).version);
  check(served === pinned, `the served renderer is the pinned one (${served}, pinned ${pinned})`);
  const radius = await page.evaluate(() => window.tilesViewer.radius);
  check(radius === 2000000, `the viewer's planet is the tileset's (radius ${radius} m)`);

  const canvasStats = () => canvasStatsOf(page);
  const waitIdle = (name) => page.waitForFunction((n) => {
    const s = window.tilesViewer.state();
    return s.mode === n && s.idle && (n !== 'ground' || s.settled);
  }, name, { timeout: 120000 });

  const views = {};
  for (const [name, key] of [['orbit', '1'], ['region', '2'], ['ground', '3']]) {
    const started = Date.now();
    await page.keyboard.press(key);
    await waitIdle(name);
    const state = await page.evaluate(() => window.tilesViewer.state());
    const stats = await canvasStats();
    await page.screenshot({ path: path.join(outDir, `tiles_viewer_${name}.png`) });
    views[name] = { state, stats };
    console.log(`${name} (${Date.now() - started} ms): ${JSON.stringify(state)}, ` +
      `luminance mean ${stats.mean.toFixed(1)} variance ${stats.variance.toFixed(1)}`);
    check(state.tiles_loaded > 0 && state.tiles_visible > 0, `${name}: tiles are loaded and drawn`);
    check(stats.variance > 100, `${name}: the picture is not blank (luminance variance > 100)`);
  }
  const { orbit, region, ground } = views;
  check(orbit.state.height_above_sphere_m > radius, 'orbit: the camera is farther out than a radius');
  check(orbit.state.deepest_visible_level < finest,
    `orbit: no tile of the finest level is drawn (deepest ${orbit.state.deepest_visible_level})`);
  check(region.state.height_above_sphere_m > 1000 && region.state.height_above_sphere_m < 50000,
    'region: the camera is 1 to 50 km above the sphere');
  check(ground.state.altitude_above_ground_m >= 2 && ground.state.altitude_above_ground_m <= 50,
    `ground: 2 to 50 m above the ground (${ground.state.altitude_above_ground_m?.toFixed(2)} m)`);
  check(ground.state.deepest_visible_level === finest && ground.state.deepest_loaded_level === finest,
    `ground: tiles of the finest baked level (${finest}) are loaded and drawn`);
  for (const [a, b] of [['orbit', 'region'], ['region', 'ground'], ['orbit', 'ground']]) {
    const f = changedFraction(views[a].stats, views[b].stats);
    check(f > 0.2, `${a} and ${b} differ (${(100 * f).toFixed(0)} % of the sampled pixels)`);
  }

  // The tile edges, with the key the panel names, at the ground and over the region. A toggle
  // shows from the next frame drawn: wait for two (a frame can take seconds on a loaded machine).
  const toggleEdges = async (on) => {
    const before = await page.evaluate(() => window.tilesViewer.state().frame);
    await page.keyboard.press('e');
    await page.waitForFunction(([f, o]) => {
      const s = window.tilesViewer.state();
      return s.edges === o && s.frame >= f + 2;
    }, [before, on], { timeout: 60000 });
  };
  await toggleEdges(true);
  const groundEdges = await canvasStats();
  await page.screenshot({ path: path.join(outDir, 'tiles_viewer_ground_edges.png') });
  const edgesChanged = changedFraction(ground.stats, groundEdges);
  check(await page.evaluate(() => document.getElementById('edges').checked),
    'key E checks the tile edges box');
  check(edgesChanged > 0.05,
    `the tile edges change the ground's pixels (${(100 * edgesChanged).toFixed(0)} %)`);
  await page.keyboard.press('2');
  await waitIdle('region');
  const regionEdges = await canvasStats();
  await page.screenshot({ path: path.join(outDir, 'tiles_viewer_region_edges.png') });
  const regionChanged = changedFraction(region.stats, regionEdges);
  check(regionChanged > 0.05,
    `the tile edges change the region's pixels (${(100 * regionChanged).toFixed(0)} %)`);
  await toggleEdges(false);
  const regionPlain = await canvasStats();
  check(changedFraction(region.stats, regionPlain) < 0.05, 'key E again hides the tile edges');
} catch (error) {
  ++failed;
  console.log(`FAILED: ${error.message}`);
} finally {
  await browser.close();
  server.kill();
}
for (const p of problems) console.log(p);
check(problems.length === 0, 'no console errors, page errors or failed requests');
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
