// planetgen's tiles viewer: streams a tiles folder (`planetgen tiles`: tileset.json and one glb
// per tile) with the three.js 3D Tiles renderer and flies from the whole globe down to the ground.
//
// The tileset says which planet it is: the 3DTILES_ellipsoid extension gives the sphere the tiles
// sit on (the renderer reads it), extras.planetgen the baked region, its finest level and the sea
// level. Frame: the tileset's own, z-up ECEF of the planet's sphere, used as the scene's world
// frame (no rotation), so the controls' ellipsoid is the tileset's. Precision: each glb carries
// its centre as a double node translation and float32 offsets; three.js multiplies the camera's
// and the tile's matrices in double on the CPU, so only small numbers reach the GPU, and a
// logarithmic depth buffer keeps the depth range from orbit to 2 m above the ground.
//
// Controls: the renderer's GlobeControls (drag, tilt, zoom to the surface) and three altitude
// presets, orbit, region and ground (buttons or keys 1, 2, 3); E toggles the tile edges (each
// tile's outline and its own tint). The line at the bottom shows the camera's altitude above the
// ground under it (a ray cast into the loaded tiles) and above the sphere, and how many tiles
// are loaded and drawn.
//
// For tests: document.body.dataset.ready = "1" once the orbit view has loaded; window.tilesViewer
// offers flyTo(name), setEdges(on), heightAt(lat, lon) (the loaded ground above the sphere) and
// state() (altitudes, tile counts, levels, load errors, idle, settled, frames drawn, edges).

import * as THREE from 'three';
import { TilesRenderer, GlobeControls } from '3d-tiles-renderer';

const status = document.getElementById('status');
const readout = document.getElementById('readout');

function fail(message) {
  status.textContent = message;
  status.classList.add('error');
  console.error(message);
}

// The tileset's own description of the planet and the bake.
let tileset;
try {
  const response = await fetch('tileset.json');
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  tileset = await response.json();
} catch (error) {
  fail(`cannot load tileset.json: ${error.message}`);
  throw error;
}
const about = tileset.extras?.planetgen ?? {};
const ellipsoidRadii = tileset.extensions?.['3DTILES_ellipsoid']?.radii;
const radius = about.radius_m ?? ellipsoidRadii?.[0] ?? tileset.root.geometricError;
const region = about.region ?? { lat_deg: 0, lon_deg: 0, radius_m: radius / 100 };
const seaLevel = about.sea_level_m ?? 0;
const finestLevel = about.finest_level ?? null;
if (!tileset.extras?.planetgen) {
  console.warn('tileset.json has no extras.planetgen: the region is unknown, flying to 0, 0');
}

const view = document.getElementById('view');
const renderer = new THREE.WebGLRenderer({
  antialias: true, logarithmicDepthBuffer: true, preserveDrawingBuffer: true,
});
renderer.setPixelRatio(window.devicePixelRatio);
renderer.setClearColor(0x05060a);
view.appendChild(renderer.domElement);

const scene = new THREE.Scene();
const camera = new THREE.PerspectiveCamera(60, 1, 1, 10 * radius);

// An absolute URL: the renderer resolves the tiles' relative URIs against it.
const tiles = new TilesRenderer(new URL('tileset.json', window.location.href).href);
// The tileset's extension sets the radii when it loads; until then the sphere is the same.
tiles.ellipsoid.radius.set(radius, radius, radius);
tiles.setCamera(camera);
scene.add(tiles.group);

const controls = new GlobeControls(scene, camera, renderer.domElement);
controls.setEllipsoid(tiles.ellipsoid, tiles.group);
controls.enableDamping = true;
controls.cameraRadius = 1;  // the ground preset stands a few metres above the terrain
controls.minDistance = 1;

// Where the region is: its centre's east, north and up axes and its point on the sphere.
const regionLat = THREE.MathUtils.degToRad(region.lat_deg);
const regionLon = THREE.MathUtils.degToRad(region.lon_deg);
const east = new THREE.Vector3(), north = new THREE.Vector3(), up = new THREE.Vector3();
const centre = new THREE.Vector3();
tiles.ellipsoid.getEastNorthUpAxes(regionLat, regionLon, east, north, up, centre);

// The sun stands low over the region, 30 degrees high in the north-west: gentle slopes read as
// a map's hillshade does, and the orbit view shows the region's side of the planet lit.
scene.add(new THREE.HemisphereLight(0xb8c8e0, 0x2a2418, 0.35));
const sun = new THREE.DirectionalLight(0xfff4e2, 3.0);
const sunElevation = THREE.MathUtils.degToRad(30);
sun.position.copy(up).multiplyScalar(Math.sin(sunElevation))
  .addScaledVector(north, Math.SQRT1_2 * Math.cos(sunElevation))
  .addScaledVector(east, -Math.SQRT1_2 * Math.cos(sunElevation)).normalize();
scene.add(sun);
scene.add(sun.target);  // at the origin: a direction only

// Hypsometric tint by height above sea level (m): sea floor blues, then lowland green to rock and
// snow.
const kRamp = [
  [-6000, 0x0b1f4a], [-2000, 0x1a4a8a], [-200, 0x3f86c4], [0, 0x8cc6e0],
  [1, 0x5c8a46], [400, 0x86a35a], [1200, 0xb5a56e], [2400, 0x8c7355],
  [3600, 0x8a8680], [5000, 0xf2f2f2],
];
const rampColours = kRamp.map(([, hex]) => new THREE.Color(hex));
const rock = new THREE.Color(0x6e655c);
function tint(height, target) {
  const h = height - seaLevel;
  if (h <= kRamp[0][0]) return target.copy(rampColours[0]);
  for (let k = 1; k < kRamp.length; ++k) {
    if (h <= kRamp[k][0]) {
      const t = (h - kRamp[k - 1][0]) / (kRamp[k][0] - kRamp[k - 1][0]);
      return target.copy(rampColours[k - 1]).lerp(rampColours[k], t);
    }
  }
  return target.copy(rampColours[rampColours.length - 1]);
}

// A tile's level from its content's name (tile_<level>_<base>_<index>.glb).
function levelOf(tile) {
  const match = /tile_(\d+)_\d+_\d+\.glb$/.exec(tile.content?.uri ?? '');
  return match ? Number(match[1]) : -1;
}

// A tile's own colour when the edges are on: a hue from its name.
function tileColour(tile) {
  let hash = 2166136261;
  for (const c of tile.content?.uri ?? '') hash = Math.imul(hash ^ c.charCodeAt(0), 16777619);
  return new THREE.Color().setHSL(((hash >>> 0) % 360) / 360, 0.75, 0.62);
}

// The outline of a tile's surface: the edges of its surface triangles that only one of them
// uses. A tile of T steps has (T + 1)(T + 2) / 2 surface vertices and T^2 triangles first, then
// its skirts, 3 (T + 1) vertices hanging under the edges (none without skirts).
function outlineOf(geometry, skirts) {
  const count = geometry.attributes.position.count;
  let t = 1;
  while ((t + 1) * (t + (skirts ? 8 : 2)) / 2 < count) ++t;
  if ((t + 1) * (t + (skirts ? 8 : 2)) / 2 !== count || !geometry.index) return null;
  const index = geometry.index.array;
  const used = new Map();
  for (let k = 0; k < 3 * t * t; k += 3) {
    for (let e = 0; e < 3; ++e) {
      const a = index[k + e], b = index[k + (e + 1) % 3];
      const key = Math.min(a, b) * count + Math.max(a, b);
      used.set(key, (used.get(key) ?? 0) + 1);
    }
  }
  const position = geometry.attributes.position;
  const points = [];
  for (const [key, n] of used) {
    if (n !== 1) continue;
    for (const v of [Math.floor(key / count), key % count]) {
      points.push(position.getX(v), position.getY(v), position.getZ(v));
    }
  }
  const lines = new THREE.BufferGeometry();
  lines.setAttribute('position', new THREE.Float32BufferAttribute(points, 3));
  return lines;
}

const edgeMaterial = new THREE.LineBasicMaterial({ color: 0xffe14d });
let edges = false;
const loaded = new Map();  // tile -> { level, materials, outlines, colour }

tiles.addEventListener('load-model', ({ scene: model, tile }) => {
  const entry = { level: levelOf(tile), materials: [], outlines: [], colour: tileColour(tile) };
  const colour = new THREE.Color();
  model.traverse((object) => {
    if (!object.isMesh) return;
    // The glb's frame is the planet's with its centre at the origin, and the mesh's node stands
    // at the tile's centre: a vertex's up is the direction of centre + offset.
    const origin = object.position;
    const geometry = object.geometry;
    const position = geometry.attributes.position, normal = geometry.attributes.normal;
    const heights = geometry.attributes._height;
    const colours = new Float32Array(position.count * 3);
    const q = new THREE.Vector3();
    for (let v = 0; v < position.count; ++v) {
      tint(heights ? heights.getX(v) : seaLevel, colour);
      if (normal) {
        // Rock shows through on steep ground: from 14 to 37 degrees of slope.
        q.set(position.getX(v), position.getY(v), position.getZ(v)).add(origin).normalize();
        const cosSlope = q.x * normal.getX(v) + q.y * normal.getY(v) + q.z * normal.getZ(v);
        const t = THREE.MathUtils.clamp((0.97 - cosSlope) / 0.17, 0, 1);
        if (heights && heights.getX(v) >= seaLevel) colour.lerp(rock, 0.7 * t);
      }
      colour.toArray(colours, 3 * v);
    }
    geometry.setAttribute('color', new THREE.BufferAttribute(colours, 3));
    const material = new THREE.MeshLambertMaterial({ vertexColors: true });
    if (edges) material.color.copy(entry.colour);
    object.material.dispose();
    object.material = material;
    entry.materials.push(material);
    // The outline, lifted off the ground by a fiftieth of the level's spacing so it is drawn
    // over the surface it lies on.
    const info = object.userData.planetgen_tile ?? object.parent?.userData?.planetgen_tile ?? {};
    const outline = outlineOf(geometry, (info.skirt_depth_m ?? 0) > 0);
    if (outline) {
      const lift = 0.02 * (info.spacing_m ?? 1);
      const p = outline.attributes.position;
      for (let v = 0; v < p.count; ++v) {
        q.set(p.getX(v), p.getY(v), p.getZ(v));
        const upward = q.clone().add(origin).normalize();
        q.addScaledVector(upward, lift);
        p.setXYZ(v, q.x, q.y, q.z);
      }
      const line = new THREE.LineSegments(outline, edgeMaterial);
      line.visible = edges;
      line.raycast = () => {};  // altitudes and the controls hit the ground, not the outline
      object.add(line);
      entry.outlines.push(line);
    }
  });
  loaded.set(tile, entry);
  lastActivity = frame;
});
tiles.addEventListener('dispose-model', ({ tile }) => loaded.delete(tile));
tiles.addEventListener('load-error', ({ error, url }) => {
  ++state.errors;
  fail(`cannot load ${url}: ${error?.message ?? error}`);
});

function setEdges(on) {
  edges = on;
  document.getElementById('edges').checked = on;
  for (const entry of loaded.values()) {
    for (const material of entry.materials) material.color.set(on ? entry.colour : 0xffffff);
    for (const line of entry.outlines) line.visible = on;
  }
}

// The ground under a point: a ray from far above it down to the planet's centre, into the tiles
// that are loaded (null when none lies under it yet).
const raycaster = new THREE.Raycaster();
raycaster.firstHitOnly = true;
function groundUnder(point) {
  const down = point.clone().normalize().negate();
  raycaster.set(point.clone().addScaledVector(down, -0.05 * radius), down);
  raycaster.far = 0.2 * radius + point.length();
  const hits = raycaster.intersectObject(tiles.group, true);
  return hits.length ? hits[0].point : null;
}

// Camera placements. Each looks at a point of the region from a distance, `elevation` degrees
// above its horizon, from the south (the north is up on the screen).
let mode = 'orbit';
let settled = false;
let userMoved = false;
const kGroundClearance = 20;  // metres above the ground at the region's centre

function lookAt(target, distance, elevationDeg) {
  const el = THREE.MathUtils.degToRad(elevationDeg);
  const localUp = target.clone().normalize();
  const localNorth = north.clone().addScaledVector(localUp, -north.dot(localUp)).normalize();
  camera.position.copy(target)
    .addScaledVector(localNorth, -distance * Math.cos(el))
    .addScaledVector(localUp, distance * Math.sin(el));
  camera.up.copy(elevationDeg > 80 ? localNorth : localUp);
  camera.lookAt(target);
  camera.updateMatrixWorld();
}

function placeGround() {
  const ground = groundUnder(centre.clone().multiplyScalar(1 + 0.01));
  const base = ground ?? centre;
  const localUp = base.clone().normalize();
  camera.position.copy(base).addScaledVector(localUp, kGroundClearance);
  camera.up.copy(localUp);
  // Look north, 12 degrees down: the ground ahead and the horizon.
  const ahead = camera.position.clone().addScaledVector(north, 100).addScaledVector(localUp, -21);
  camera.lookAt(ahead);
  camera.updateMatrixWorld();
  return ground !== null;
}

function flyTo(name) {
  mode = name;
  lastActivity = frame;
  state.idle = false;
  settled = false;
  userMoved = false;
  controls.resetState?.();
  controls.globeInertiaFactor = 0;
  if (name === 'orbit') {
    lookAt(centre, 1.8 * radius, 90);
  } else if (name === 'region') {
    // The region and its surroundings up to the horizon, seen from the south at 35 degrees.
    lookAt(centre, Math.max(10 * region.radius_m, 5000), 35);
  } else if (name === 'ground') {
    placeGround();
  } else {
    throw new Error(`no view named ${name}`);
  }
}

controls.addEventListener('start', () => {
  userMoved = true;
  lastActivity = frame;
});

// Altitude readout and the test's state: every few frames.
const state = {
  mode, altitude_above_ground_m: null, height_above_sphere_m: 0, tiles_loaded: 0,
  tiles_visible: 0, deepest_visible_level: -1, deepest_loaded_level: -1,
  finest_level: finestLevel, idle: false, settled: false, errors: 0,
};
// Idle: nothing queued, downloading or parsing, and nothing loaded or moved for 20 frames (a
// camera that just moved has not asked for its tiles yet).
let frame = 0;
let lastActivity = 0;
function idleNow() {
  const s = tiles.stats;
  if (tiles.root === null || s.queued + s.downloading + s.parsing > 0) lastActivity = frame;
  return loaded.size > 0 && frame - lastActivity > 20;
}
function updateState() {
  const ground = groundUnder(camera.position);
  state.mode = mode;
  state.height_above_sphere_m = camera.position.length() - radius;
  state.altitude_above_ground_m = ground ? camera.position.distanceTo(ground) *
    Math.sign(camera.position.length() - ground.length()) : null;
  state.tiles_loaded = loaded.size;
  state.tiles_visible = tiles.visibleTiles.size;
  let deepestVisible = -1, deepestLoaded = -1;
  for (const tile of tiles.visibleTiles) deepestVisible = Math.max(deepestVisible, levelOf(tile));
  for (const entry of loaded.values()) deepestLoaded = Math.max(deepestLoaded, entry.level);
  state.deepest_visible_level = deepestVisible;
  state.deepest_loaded_level = deepestLoaded;
  state.idle = idleNow();
  state.settled = settled;
  const km = (m) => (Math.abs(m) >= 10000 ? `${(m / 1000).toFixed(0)} km` :
    Math.abs(m) >= 1000 ? `${(m / 1000).toFixed(2)} km` : `${m.toFixed(1)} m`);
  readout.textContent =
    `altitude ${state.altitude_above_ground_m === null ? '–' : km(state.altitude_above_ground_m)} ` +
    `above ground (${km(state.height_above_sphere_m)} above the ${km(radius)} sphere) · ` +
    `tiles loaded ${state.tiles_loaded}, drawn ${state.tiles_visible} · ` +
    `level ${deepestVisible}${finestLevel !== null ? ` of ${finestLevel}` : ''}`;
}

// The ground preset lands on tiles that are not loaded yet: once they are, it stands again
// kGroundClearance above the ground it finds, until it stays there (or the user moves).
function settleGround() {
  if (mode !== 'ground' || settled || userMoved || !idleNow()) return;
  const before = camera.position.clone();
  const found = placeGround();
  if (found && before.distanceTo(camera.position) < 0.5) settled = true;
}

function resize() {
  const width = view.clientWidth, height = view.clientHeight;
  renderer.setSize(width, height);
  camera.aspect = width / height;
  camera.updateProjectionMatrix();
}
window.addEventListener('resize', resize);
resize();

document.getElementById('orbit').addEventListener('click', () => flyTo('orbit'));
document.getElementById('region').addEventListener('click', () => flyTo('region'));
document.getElementById('ground').addEventListener('click', () => flyTo('ground'));
document.getElementById('edges').addEventListener('change', (e) => setEdges(e.target.checked));
window.addEventListener('keydown', (e) => {
  if (e.target instanceof HTMLInputElement && e.target.type !== 'checkbox') return;
  if (e.key === '1') flyTo('orbit');
  else if (e.key === '2') flyTo('region');
  else if (e.key === '3') flyTo('ground');
  else if (e.key === 'e' || e.key === 'E') setEdges(!edges);
});

status.textContent =
  `planet radius ${(radius / 1000).toFixed(0)} km · region ${region.lat_deg}°, ` +
  `${region.lon_deg}°, ${(region.radius_m / 1000).toFixed(1)} km` +
  (finestLevel !== null ? ` · finest level ${finestLevel} (${about.finest_spacing_m.toFixed(1)} m)` : '');

flyTo('orbit');
renderer.setAnimationLoop(() => {
  controls.update();
  camera.updateMatrixWorld();
  tiles.setResolutionFromRenderer(camera, renderer);
  tiles.update();
  renderer.render(scene, camera);
  ++frame;
  idleNow();
  if (frame % 5 === 0) {
    settleGround();
    updateState();
    if (document.body.dataset.ready !== '1' && state.idle && mode === 'orbit') {
      document.body.dataset.ready = '1';
    }
  }
});

// The ground's height above the sphere at a latitude and longitude (degrees), from the tiles
// loaded now; null where none is.
function heightAt(latDeg, lonDeg) {
  const point = new THREE.Vector3();
  tiles.ellipsoid.getCartographicToPosition(
    THREE.MathUtils.degToRad(latDeg), THREE.MathUtils.degToRad(lonDeg), 0, point);
  const ground = groundUnder(point);
  return ground ? ground.length() - radius : null;
}

window.tilesViewer = { flyTo, setEdges, heightAt, state: () => ({ ...state, idle: state.idle && idleNow(), frame, edges }), radius, region };
