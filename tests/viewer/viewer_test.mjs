// Browser test of the web viewer (app/viewer). Starts the C++ test driver, which writes a
// synthetic planet.glb into OUT_DIR and serves it with the viewer (app/viewer_server), then
// drives Debian's chromium through playwright-core (pinned in package-lock.json):
//   - the page reports ready (document.body.dataset.ready) with no console error,
//   - the canvas is not blank (pixel variance),
//   - switching the colour layer changes the pixels,
//   - the sun slider, ocean switch, chunk outlines and LOD selection work without errors,
//   - every colour layer (tint, biome, elevation, rainfall, erosion, temperature, discharge) is
//     offered and shows a legend naming its unit,
//   - the hover readout returns latitude, longitude, elevation, rainfall, temperature, biome and
//     discharge, like a default run, from a glb without mask attributes: at two probe vertices
//     printed by the server (`wet`: the largest discharge, `dry`: no river near) against the
//     server's values.
// Screenshots go to OUT_DIR (viewer_tint.png, viewer_biome.png, ...).
//
// usage: node viewer_test.mjs SERVER_BINARY OUT_DIR [VIEWER_DIR]  (VIEWER_DIR: another viewer
// folder than the server's default, e.g. an older version to see the checks fail)
// Exit code 0 when every check passes, 1 otherwise, 77 (skipped) when chromium is missing.

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';

import { canvasStats as canvasStatsOf, changedFraction } from './canvas.mjs';

const [serverBinary, outDir, viewerDir] = process.argv.slice(2);
if (!serverBinary || !outDir) {
  console.error('usage: node viewer_test.mjs SERVER_BINARY OUT_DIR');
  process.exit(2);
}
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';
if (!existsSync(chromiumPath)) {
  console.log(`skipped: ${chromiumPath} not found (apt-get install chromium)`);
  process.exit(77);
}
mkdirSync(outDir, { recursive: true });

// The relief of viewer_test_server.cpp at a latitude and longitude (degrees).
function reliefAt(latDeg, lonDeg) {
  const lat = latDeg * Math.PI / 180, lon = lonDeg * Math.PI / 180;
  const [x, y, z] = [Math.cos(lat) * Math.cos(lon), Math.sin(lat), -Math.cos(lat) * Math.sin(lon)];
  const continents = Math.sin(2.1 * x + 0.4) * Math.cos(1.7 * z - 0.3) + 0.6 * Math.sin(3.3 * y + 1.1 * x);
  const ridges = Math.abs(Math.sin(9.0 * x + 5.0 * y) * Math.cos(7.0 * z));
  return 3500 * continents + 2500 * ridges * Math.max(0, continents) - 1200;
}

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

const server = spawn(serverBinary, viewerDir ? [outDir, viewerDir] : [outDir], { stdio: ['pipe', 'pipe', 'inherit'] });
let text = '';
const url = await new Promise((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error('the server did not start in 120 s')), 120000);
  server.stdout.on('data', (data) => {
    text += data;
    const match = text.match(/serving (\S+)/);
    if (match) {
      clearTimeout(timer);
      resolve(match[1]);
    }
  });
  server.on('exit', (code) => reject(new Error(`the server exited with ${code}`)));
});
console.log(`server: ${url}`);
// "probe NAME lat lon elevation rainfall temperature discharge biome name" (viewer_test_server.cpp)
const probes = {};
for (const line of text.split('\n')) {
  const f = line.trim().split(' ');
  if (f[0] !== 'probe') continue;
  const [lat, lon, elevation, rainfall, temperature, discharge] = f.slice(2, 8).map(Number);
  probes[f[1]] = { lat, lon, elevation, rainfall, temperature, discharge, biome: f.slice(8).join(' ') };
}

const browser = await chromium.launch({
  executablePath: chromiumPath,
  headless: true,
  args: ['--headless', '--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
         '--disable-background-networking', '--disable-component-update', '--disable-sync',
         '--no-first-run'],
});
const problems = [];
try {
  const openPage = async () => {
    const p = await browser.newPage({ viewport: { width: 960, height: 640 } });
    p.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
    });
    p.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    p.on('requestfailed', (request) =>
      problems.push(`request failed: ${request.url()}: ${request.failure()?.errorText}`));
    return p;
  };
  const page = await openPage();

  await page.goto(url, { waitUntil: 'load' });
  await page.waitForFunction(() => document.body.dataset.ready === '1', null, { timeout: 120000 });
  check(true, 'the page reports ready');

  const canvasStats = () => canvasStatsOf(page);

  const tint = await canvasStats();
  await page.screenshot({ path: path.join(outDir, 'viewer_tint.png') });
  console.log(`tint: mean ${tint.mean.toFixed(1)}, variance ${tint.variance.toFixed(1)}`);
  check(tint.variance > 100, 'the rendered planet is not blank (luminance variance > 100)');

  const setLayer = async (layer) => {
    await page.selectOption('#layer', layer);
    await page.waitForFunction((l) => document.body.dataset.layer === l, layer);
    const stats = await canvasStats();
    await page.screenshot({ path: path.join(outDir, `viewer_${layer}.png`) });
    return stats;
  };
  // Legends: the title names the unit (data-unit); the synthetic planet's COLOR_0 is the
  // hypsometric tint ([export] color = "terrain"), whose legend is in metres.
  const units = { tint: 'm', biome: 'class (export/biomes.h)', elevation: 'm', rainfall: 'drops/sr',
                  erosion: 'm', temperature: '°C', discharge: 'm³/s' };
  const legend = async () => page.evaluate(() => {
    const title = document.querySelector('#legend .title');
    return { unit: title ? title.dataset.unit : null, text: document.getElementById('legend').innerText,
             rows: document.querySelectorAll('#legend div').length - 1,
             visible: title ? title.getBoundingClientRect().height > 0 : false };
  });
  const offered = await page.evaluate(() =>
    [...document.querySelectorAll('#layer option')].filter((o) => !o.disabled).map((o) => o.value));
  check(Object.keys(units).every((layer) => offered.includes(layer)),
        `every colour layer is offered without mask attributes (${offered.join(', ')})`);
  const checkLegend = async (layer) => {
    const l = await legend();
    console.log(`${layer} legend: ${l.text.replace(/\n/g, ' | ')}`);
    check(l.visible && l.unit === units[layer] && l.rows >= 2 && l.text.includes(`(${units[layer]})`),
          `the ${layer} legend is shown with its unit ${units[layer]} (got ${l.unit}, ${l.rows} rows)`);
  };
  await checkLegend('tint');
  for (const layer of ['biome', 'elevation', 'rainfall', 'erosion', 'temperature', 'discharge']) {
    const stats = await setLayer(layer);
    const changed = changedFraction(tint, stats);
    console.log(`${layer}: ${(100 * changed).toFixed(1)}% of sampled pixels changed`);
    check(changed > 0.05, `switching to the ${layer} layer changes the pixels`);
    await checkLegend(layer);
  }
  const back = await setLayer('tint');
  check(changedFraction(tint, back) < 0.01, 'switching back to tint restores the picture');

  await page.locator('#sun').fill('200');
  const night = await canvasStats();
  check(changedFraction(tint, night) > 0.05, 'moving the sun changes the lighting');
  await page.locator('#sun').fill('40');

  // Rivers and lakes toggle, vertical exaggeration, hover readout.
  check(!(await page.locator('#water').isDisabled()), 'the planet has rivers and lakes to show');
  await page.locator('#water').uncheck();
  const dry = await canvasStats();
  await page.screenshot({ path: path.join(outDir, 'viewer_no_water.png') });
  const waterChanged = changedFraction(tint, dry);
  console.log(`rivers and lakes off: ${(100 * waterChanged).toFixed(2)}% of sampled pixels changed`);
  check(waterChanged > 0.001, 'hiding rivers and lakes changes the pixels');
  await page.locator('#water').check();
  check(changedFraction(tint, await canvasStats()) < 0.01, 'showing them again restores the picture');

  await page.locator('#exaggeration').fill('30');
  await page.waitForFunction(() => document.body.dataset.exaggeration === '30');
  await page.screenshot({ path: path.join(outDir, 'viewer_exaggerated.png') });
  const exaggerated = changedFraction(tint, await canvasStats());
  console.log(`exaggeration 30x: ${(100 * exaggerated).toFixed(2)}% of sampled pixels changed`);
  check(exaggerated > 0.01, 'vertical exaggeration 30x changes the picture');
  await page.locator('#exaggeration').fill('1');
  await page.waitForFunction(() => document.body.dataset.exaggeration === '1');

  // Hover over the middle of the view: the readout's elevation against the relief formula of
  // viewer_test_server.cpp at the readout's latitude and longitude. Tolerance 250 m: the f = 48
  // mesh interpolates the formula linearly over triangles about 160 km wide (the ridge term
  // changes by up to ~600 m per edge and has kinks).
  const box = await page.locator('#view canvas').boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.waitForFunction(() => (document.body.dataset.hover || '') !== '');
  const hover = JSON.parse(await page.evaluate(() => document.body.dataset.hover));
  const expected = reliefAt(hover.lat, hover.lon);
  console.log(`hover: ${JSON.stringify(hover)}; formula ${expected.toFixed(0)} m`);
  check(Math.abs(hover.elevation_m - expected) <= 250,
        `hover readout elevation ${hover.elevation_m.toFixed(0)} m within 250 m of ${expected.toFixed(0)} m`);
  check(Number.isFinite(hover.temperature_c) && typeof hover.biome === 'string', 'the readout has temperature and biome');
  check((await page.locator('#readout').textContent()).includes('elevation'), 'the readout is shown');
  check(Number.isFinite(hover.rainfall) && Number.isFinite(hover.rain_relative) &&
        Number.isFinite(hover.discharge_m3_s) && hover.discharge_m3_s >= 0,
        'the readout has rainfall (drops/sr and relative) and discharge without mask attributes');

  // Probes: the camera straight above a vertex printed by the server, the pointer in the middle.
  // At a vertex the readout's elevation, rainfall and biome are the vertex's own (tolerances
  // for the quantized positions), its temperature the formula of export/biomes.h. Discharge: the
  // wet vertex is a channel vertex, so the Rivers node's _DISCHARGE there (float32: 1e-4
  // relative); the dry vertex carries no river, so the flow mask (2048 x 1024 here) bilinearly
  // interpolated: at most 2 m3/s, as no vertex near it carries more (1e-3 for the 16-bit
  // rounding).
  const saved = await page.evaluate(() => window.viewer.cameraPosition());
  const readAt = async (probe) => {
    await page.evaluate(([lat, lon]) => {
      window.viewer.lookAt(lat, lon);
      document.body.dataset.hover = '';
    }, [probe.lat, probe.lon]);
    await page.mouse.move(box.x + box.width / 2 + 3, box.y + box.height / 2 + 3);
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.waitForFunction(() => (document.body.dataset.hover || '') !== '');
    return JSON.parse(await page.evaluate(() => document.body.dataset.hover));
  };
  check(probes.wet && probes.dry, 'the server printed the wet and dry probes');
  for (const [name, probe] of Object.entries(probes)) {
    const r = await readAt(probe);
    await page.screenshot({ path: path.join(outDir, `viewer_probe_${name}.png`) });
    console.log(`probe ${name}: server ${JSON.stringify(probe)}\n  readout ${JSON.stringify(r)}`);
    check(Math.abs(r.lat - probe.lat) < 0.02 && Math.abs(r.lon - probe.lon) < 0.02,
          `${name}: readout at lat ${r.lat.toFixed(3)}, lon ${r.lon.toFixed(3)} (target ${probe.lat.toFixed(3)}, ${probe.lon.toFixed(3)})`);
    check(Math.abs(r.elevation_m - probe.elevation) <= 5,
          `${name}: elevation ${r.elevation_m.toFixed(1)} m within 5 m of ${probe.elevation.toFixed(1)} m`);
    check(Math.abs(r.rainfall - probe.rainfall) <= 1e-3 * Math.max(1, probe.rainfall),
          `${name}: rainfall ${r.rainfall.toFixed(4)} drops/sr is the vertex's ${probe.rainfall.toFixed(4)}`);
    check(Math.abs(r.temperature_c - probe.temperature) <= 0.1,
          `${name}: temperature ${r.temperature_c.toFixed(2)} °C within 0.1 °C of ${probe.temperature.toFixed(2)} °C`);
    check(r.biome === probe.biome, `${name}: biome '${r.biome}' is the vertex's '${probe.biome}'`);
    if (name === 'wet') {
      check(probe.discharge > 20 && r.discharge_source === 'river' &&
            Math.abs(r.discharge_m3_s - probe.discharge) <= 1e-4 * probe.discharge,
            `wet: discharge ${r.discharge_m3_s.toFixed(2)} m³/s (${r.discharge_source}) is the vertex's ${probe.discharge.toFixed(2)} m³/s`);
    } else {
      check(r.discharge_source === 'flow mask' && r.discharge_m3_s >= 0 && r.discharge_m3_s <= 2 + 1e-3,
            `dry: discharge ${r.discharge_m3_s.toFixed(3)} m³/s (${r.discharge_source}) at most 2 m³/s`);
    }
    check((await page.locator('#readout').textContent()).includes('m³/s'), `${name}: the readout shows the discharge`);
  }
  await page.evaluate((xyz) => window.viewer.setCameraPosition(xyz), saved);

  await page.locator('#ocean').uncheck();
  await page.locator('#outlines').check();
  await page.screenshot({ path: path.join(outDir, 'viewer_outlines.png') });
  const outlined = await canvasStats();
  check(changedFraction(tint, outlined) > 0.01, 'ocean off and chunk outlines on change the picture');

  const lodCount = await page.locator('#lod option').count();
  check(lodCount === 3, `three levels of detail are offered (got ${lodCount})`);
  await page.selectOption('#lod', '2');
  await page.waitForFunction(() => document.getElementById('status').textContent.includes('LOD 2'));
  await page.screenshot({ path: path.join(outDir, 'viewer_lod2.png') });
  const status = await page.locator('#status').textContent();
  console.log(`status: ${status.replace(/\n/g, ' | ')}`);
  // 80 chunks of 28 vertices, plus the copies along the texture seam and at the poles.
  const lod2 = /LOD 2: ([\d,]+) vertices, 2,?880 triangles, 80 chunks/.exec(status);
  const lod2Vertices = lod2 ? Number(lod2[1].replace(/,/g, '')) : 0;
  check(lod2Vertices >= 2240 && lod2Vertices <= 2240 + 200,
        `LOD 2 (frequency 12: 80 chunks of 28 vertices + seam copies) is loaded and shown (${lod2Vertices})`);

  // An unchunked Land split into 20 primitives (planet_whole.glb, f = 96), the layout of a
  // default run: every vertex is counted and the readout answers all around the globe, not only
  // over the first primitive. Tolerance 100 m: triangles about 80 km wide (see above).
  const whole = await openPage();
  await whole.goto(`${url}?model=planet_whole.glb`, { waitUntil: 'load' });
  await whole.waitForFunction(() => document.body.dataset.ready === '1', null, { timeout: 120000 });
  const wholeStatus = await whole.locator('#status').textContent();
  const wholeVertices = Number((/LOD 0: ([\d,]+) vertices/.exec(wholeStatus) || [0, '0'])[1].replace(/,/g, ''));
  check(wholeVertices >= 92162, `planet_whole.glb: all ${wholeVertices} vertices of its primitives are counted`);
  let answered = 0, within = 0;
  for (const lat of [-50, -15, 15, 50]) {
    for (const lon of [-150, -60, 30, 120]) {
      await whole.evaluate(([a, b]) => {
        window.viewer.lookAt(a, b);
        document.body.dataset.hover = '';
      }, [lat, lon]);
      await whole.mouse.move(box.x + box.width / 2 + 3, box.y + box.height / 2 + 3);
      await whole.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await whole.waitForTimeout(50);
      const text = await whole.evaluate(() => document.body.dataset.hover || '');
      if (!text) continue;
      ++answered;
      const r = JSON.parse(text);
      if (Math.abs(r.lat - lat) < 0.02 && Math.abs(r.elevation_m - reliefAt(r.lat, r.lon)) <= 100) ++within;
    }
  }
  check(answered === 16 && within === 16,
        `planet_whole.glb: the readout answers at 16 points around the globe (${answered}) with the relief's elevation within 100 m (${within})`);
  await whole.close();

  // Reloading the model the way three.js's FileLoader reads it (a getReader() loop) must
  // finish cleanly every time. With Cache-Control: no-store, Chromium reported about one
  // in four such fetches as net::ERR_ABORTED although every byte arrived; the failed-request
  // check below catches that.
  const reloads = await page.evaluate(async () => {
    const sizes = [];
    for (let i = 0; i < 12; ++i) {
      const reader = (await fetch(`planet.glb?reload=${i}`)).body.getReader();
      let size = 0;
      for (let part = await reader.read(); !part.done; part = await reader.read()) {
        size += part.value.byteLength;
      }
      sizes.push(size);
    }
    return sizes;
  });
  const glbSize = statSync(path.join(outDir, 'planet.glb')).size;
  check(reloads.every((size) => size === glbSize),
        `12 streamed reloads of planet.glb each read all ${glbSize} bytes`);
  await page.waitForTimeout(300);  // let the last request's completion reach the listener
} catch (error) {
  problems.push(`test error: ${error.stack || error}`);
} finally {
  await browser.close();
  server.stdin.end();
  server.kill('SIGTERM');
}
for (const problem of problems) console.log(problem);
check(problems.length === 0, 'no console errors, page errors or failed requests');
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
