// planetgen viewer: loads a planet .glb (URL parameter `model`, default planet.glb) and shows it
// with an orbit camera, a sun, an ocean switch, colour layers read from the custom vertex
// attributes, level-of-detail selection (MSFT_lod levels) and chunk outlines.
//
// GLTFLoader exposes custom attributes under lower-cased names: _ELEVATION -> _elevation,
// _BIOME -> _biome, _RAINFALL -> _rainfall, _EROSION -> _erosion. It keeps node extras in
// userData and unknown extensions (MSFT_lod) in userData.gltfExtensions.
//
// When the model is loaded and drawn, document.body.dataset.ready = "1" (and window.viewerReady
// = true); after a colour layer is applied and drawn, document.body.dataset.layer names it.

import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { MeshoptDecoder } from 'three/addons/libs/meshopt_decoder.module.js';
import { formatReadout, readoutAt, setExaggeration, waterNodes } from './water.js';

const $ = (id) => document.getElementById(id);
const statusBox = $('status');

function setStatus(text, isError = false) {
  statusBox.textContent = text;
  statusBox.classList.toggle('error', isError);
}

function fail(error) {
  console.error(error);
  setStatus(`error: ${error && error.message ? error.message : error}`, true);
}
window.addEventListener('error', (event) => fail(event.error || event.message));
window.addEventListener('unhandledrejection', (event) => fail(event.reason));

const view = $('view');
const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(Math.min(window.devicePixelRatio, 2));
renderer.setSize(view.clientWidth, view.clientHeight);
view.appendChild(renderer.domElement);

const scene = new THREE.Scene();
scene.background = new THREE.Color(0x05060a);
const camera = new THREE.PerspectiveCamera(40, view.clientWidth / view.clientHeight, 1, 1e9);
const controls = new OrbitControls(camera, renderer.domElement);
controls.enableDamping = false;
scene.add(new THREE.HemisphereLight(0xc8d8ff, 0x1a1a1a, 0.45));
const sun = new THREE.DirectionalLight(0xffffff, 2.8);
scene.add(sun);

// The near plane follows the camera to just in front of the planet: with a fixed near plane
// the depth buffer cannot tell land a few kilometres above the sea from the ocean sphere.
function render() {
  const distance = camera.position.length();
  const near = Math.max(distance - state.radius * 1.05, state.radius * 0.002);
  if (Math.abs(camera.near - near) > 1e-6 * near) {
    camera.near = near;
    camera.far = distance + state.radius * 1.5;
    camera.updateProjectionMatrix();
  }
  renderer.render(scene, camera);
}
controls.addEventListener('change', render);
window.addEventListener('resize', () => {
  camera.aspect = view.clientWidth / view.clientHeight;
  camera.updateProjectionMatrix();
  renderer.setSize(view.clientWidth, view.clientHeight);
  render();
});

// Colour ramps: stops of sRGB colours, converted to the linear values three.js stores.
const RAMPS = {
  elevation: ['#1b3a6b', '#3c78b4', '#a7d3e0', '#e8dca0', '#5e9a3e', '#8d7b52', '#f5f5f5'],
  rainfall: ['#ffffd9', '#c7e9b4', '#41b6c4', '#225ea8', '#081d58'],
  erosion: ['#b2182b', '#ef8a62', '#f7f7f7', '#67a9cf', '#2166ac'],  // red erosion, blue deposit
};
const rampCache = {};
function rampColour(name, t, target) {
  const stops = (rampCache[name] ||= RAMPS[name].map((hex) => new THREE.Color(hex)));
  const x = Math.min(Math.max(t, 0), 1) * (stops.length - 1);
  const i = Math.min(Math.floor(x), stops.length - 2);
  return target.copy(stops[i]).lerp(stops[i + 1], x - i);
}

const state = {
  gltf: null,
  land: null,
  ocean: null,
  levels: [],        // Object3D per level of detail (loaded on demand)
  levelIds: [],      // glTF node index per level
  radius: 1,
  legend: null,      // [{id, name, colour}] from Land's extras
  layer: 'tint',
  ranges: {},
  outlines: false,
};

// Land meshes of a level: the chunk surfaces (primitive 0) and skirts (primitive 1).
function landMeshes(level) {
  const meshes = [];
  level.traverse((object) => {
    if (!object.isMesh) return;
    const association = state.gltf.parser.associations.get(object) || {};
    object.userData.primitive = association.primitives || 0;
    meshes.push(object);
  });
  return meshes;
}

function prepareLevel(level) {
  for (const mesh of landMeshes(level)) {
    const geometry = mesh.geometry;
    geometry.userData.tint ||= geometry.getAttribute('color');
    geometry.userData.layers ||= {};
  }
}

function fieldRange(name) {
  let lo = Infinity, hi = -Infinity, magnitude = 0;
  for (const mesh of landMeshes(state.levels[0])) {
    const attribute = mesh.geometry.getAttribute(name);
    if (!attribute) continue;
    for (let i = 0; i < attribute.count; ++i) {
      const v = attribute.getX(i);
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
      magnitude = Math.max(magnitude, Math.abs(v));
    }
  }
  return Number.isFinite(lo) ? { lo, hi, magnitude } : null;
}

function hasAttribute(name) {
  return landMeshes(state.levels[0]).some((mesh) => mesh.geometry.getAttribute(name));
}

function layerColours(geometry, layer) {
  const count = geometry.getAttribute('position').count;
  const colours = new Float32Array(count * 3);
  const c = new THREE.Color();
  const attribute = geometry.getAttribute(`_${layer}`);
  for (let i = 0; i < count; ++i) {
    const v = attribute ? attribute.getX(i) : 0;
    if (layer === 'biome') {
      const entry = state.legend && state.legend[Math.round(v)];
      c.set(entry ? entry.colour : '#ff00ff');
    } else if (layer === 'elevation') {
      const r = state.ranges.elevation;
      rampColour('elevation', (v - r.lo) / Math.max(r.hi - r.lo, 1e-9), c);
    } else if (layer === 'rainfall') {
      rampColour('rainfall', v / Math.max(state.ranges.rainfall.hi, 1e-12), c);
    } else {
      const limit = Math.max(state.ranges.erosion.magnitude, 1e-12);
      rampColour('erosion', 0.5 + 0.5 * v / limit, c);
    }
    colours[3 * i] = c.r;
    colours[3 * i + 1] = c.g;
    colours[3 * i + 2] = c.b;
  }
  return new THREE.BufferAttribute(colours, 3);
}

function applyLayer(layer) {
  state.layer = layer;
  for (const level of state.levels) {
    if (!level) continue;
    for (const mesh of landMeshes(level)) {
      const geometry = mesh.geometry;
      let colours = geometry.userData.tint;
      if (layer !== 'tint') colours = geometry.userData.layers[layer] ||= layerColours(geometry, layer);
      geometry.setAttribute('color', colours);
    }
  }
  showLegend(layer);
  render();
  document.body.dataset.layer = layer;
}

function showLegend(layer) {
  const box = $('legend');
  box.replaceChildren();
  const row = (colour, text) => {
    const div = document.createElement('div');
    const swatch = document.createElement('span');
    swatch.className = 'swatch';
    swatch.style.background = colour;
    div.append(swatch, text);
    box.append(div);
  };
  if (layer === 'biome' && state.legend) {
    for (const entry of state.legend) row(entry.colour, `${entry.id} ${entry.name}`);
  } else if (layer !== 'tint' && state.ranges[layer]) {
    const r = state.ranges[layer];
    const ends = layer === 'erosion' ? [-r.magnitude, r.magnitude] : [layer === 'rainfall' ? 0 : r.lo, r.hi];
    const unit = { elevation: ' m', rainfall: ' drops/sr', erosion: ' m' }[layer] || '';
    row(RAMPS[layer][0], `${ends[0].toPrecision(3)}${unit}`);
    row(RAMPS[layer][RAMPS[layer].length - 1], `${ends[1].toPrecision(3)}${unit}`);
  }
}

function setSun(degrees) {
  const a = THREE.MathUtils.degToRad(degrees);
  sun.position.set(Math.cos(a), 0.35, -Math.sin(a)).multiplyScalar(state.radius * 10);
  render();
}

// Chunk borders: edges used by a single triangle of a chunk's surface primitive.
function outlineFor(mesh) {
  const index = mesh.geometry.getIndex();
  const position = mesh.geometry.getAttribute('position');
  const uses = new Map();
  const key = (a, b) => (a < b ? `${a},${b}` : `${b},${a}`);
  for (let t = 0; t < index.count; t += 3) {
    for (let k = 0; k < 3; ++k) {
      const id = key(index.getX(t + k), index.getX(t + ((k + 1) % 3)));
      uses.set(id, (uses.get(id) || 0) + 1);
    }
  }
  // Lifted 0.002 % of the radius above the ground (in world space, then back to the chunk's
  // frame) so the lines are not hidden by the surface they lie on.
  mesh.updateWorldMatrix(true, false);
  const p = new THREE.Vector3();
  const points = [];
  for (const [id, count] of uses) {
    if (count !== 1) continue;
    for (const v of id.split(',').map(Number)) {
      mesh.localToWorld(p.fromBufferAttribute(position, v)).multiplyScalar(1 + 2e-5);
      mesh.worldToLocal(p);
      points.push(p.x, p.y, p.z);
    }
  }
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute('position', new THREE.Float32BufferAttribute(points, 3));
  const lines = new THREE.LineSegments(geometry, new THREE.LineBasicMaterial({ color: 0xffd34d }));
  lines.name = 'outline';
  return lines;
}

function setOutlines(on) {
  state.outlines = on;
  for (const level of state.levels) {
    if (!level) continue;
    for (const mesh of landMeshes(level)) {
      if (mesh.userData.primitive !== 0 || !mesh.name.includes('_C')) continue;
      mesh.userData.outline ||= outlineFor(mesh);
      if (on && !mesh.userData.outline.parent) mesh.add(mesh.userData.outline);
      if (!on && mesh.userData.outline.parent) mesh.remove(mesh.userData.outline);
    }
  }
  render();
}

async function showLevel(i) {
  if (!state.levels[i]) {
    setStatus(`loading level of detail ${i}…`);
    const level = await state.gltf.parser.getDependency('node', state.levelIds[i]);
    state.levels[i] = level;
    state.levels[0].parent.add(level);
    prepareLevel(level);
  }
  state.levels.forEach((level, j) => {
    if (level) level.visible = j === i;
  });
  applyLayer(state.layer);
  setOutlines(state.outlines);
  describe(i);
}

function describe(level) {
  let vertices = 0, triangles = 0, chunks = 0;
  for (const mesh of landMeshes(state.levels[level])) {
    if (mesh.userData.primitive !== 0) continue;
    vertices += mesh.geometry.getAttribute('position').count;
    triangles += mesh.geometry.getIndex().count / 3;
    if (mesh.name.includes('_C')) ++chunks;
  }
  setStatus(`${modelUrl}\nLOD ${level}: ${vertices.toLocaleString()} vertices, ` +
            `${triangles.toLocaleString()} triangles` + (chunks ? `, ${chunks} chunks` : ''));
}

const modelUrl = new URLSearchParams(window.location.search).get('model') || 'planet.glb';

// [export] meshopt = true files need the decoder; KHR_mesh_quantization needs nothing.
new GLTFLoader().setMeshoptDecoder(MeshoptDecoder).load(
  modelUrl,
  (gltf) => {
    state.gltf = gltf;
    scene.add(gltf.scene);
    state.land = gltf.scene.getObjectByName('Land');
    state.ocean = gltf.scene.getObjectByName('Ocean');
    if (!state.land) throw new Error(`${modelUrl} has no node named Land`);
    // Land's extras hold the legend as JSON text (assimp 5.2 aborts on nested extras).
    const legend = state.land.userData.biome_legend;
    state.legend = typeof legend === 'string' ? JSON.parse(legend) : legend || null;

    const lod0 = state.land.getObjectByName('Land_LOD0');
    state.levels = [lod0 || state.land];
    state.levelIds = [null];
    const lod = lod0 && lod0.userData.gltfExtensions && lod0.userData.gltfExtensions.MSFT_lod;
    for (const id of lod ? lod.ids : []) {
      state.levels.push(null);
      state.levelIds.push(id);
    }
    $('lod').replaceChildren(...state.levels.map((_, i) => new Option(`LOD ${i}`, String(i))));
    prepareLevel(state.levels[0]);

    const sphere = new THREE.Box3().setFromObject(state.levels[0]).getBoundingSphere(new THREE.Sphere());
    state.radius = sphere.radius;
    camera.position.set(state.radius * 0.9, state.radius * 1.1, state.radius * 2.6);
    camera.updateProjectionMatrix();
    controls.target.set(0, 0, 0);
    controls.minDistance = state.radius * 1.05;
    controls.maxDistance = state.radius * 10;
    controls.update();

    state.ranges.elevation = fieldRange('_elevation');
    state.ranges.rainfall = fieldRange('_rainfall');
    state.ranges.erosion = fieldRange('_erosion');
    for (const option of $('layer').options) {
      option.disabled = option.value !== 'tint' && !hasAttribute(`_${option.value}`);
    }
    $('outlines').disabled = !landMeshes(state.levels[0]).some((m) => m.name.includes('_C'));

    $('layer').addEventListener('change', (e) => applyLayer(e.target.value));
    $('sun').addEventListener('input', (e) => setSun(Number(e.target.value)));
    $('ocean').addEventListener('change', (e) => {
      if (state.ocean) state.ocean.visible = e.target.checked;
      render();
    });
    $('outlines').addEventListener('change', (e) => setOutlines(e.target.checked));
    // Issue 19: rivers and lakes, vertical exaggeration, hover readout (water.js).
    const planet = state.land.parent;  // the Planet node (the glTF scene is also named Planet)
    const water = waterNodes(gltf.scene);
    $('water').disabled = water.length === 0;
    $('water').addEventListener('change', (e) => {
      for (const node of water) node.visible = e.target.checked;
      render();
    });
    $('exaggeration').addEventListener('input', (e) => {
      setExaggeration(planet, Number(e.target.value));
      $('exaggeration_value').textContent = `${e.target.value}×`;
      render();
      document.body.dataset.exaggeration = e.target.value;
    });
    const raycaster = new THREE.Raycaster();
    const pointer = new THREE.Vector2();
    renderer.domElement.addEventListener('pointermove', (e) => {
      const rect = renderer.domElement.getBoundingClientRect();
      pointer.set(((e.clientX - rect.left) / rect.width) * 2 - 1,
                  -((e.clientY - rect.top) / rect.height) * 2 + 1);
      raycaster.setFromCamera(pointer, camera);
      const level = state.levels.find((l) => l && l.visible) || state.levels[0];
      const meshes = landMeshes(level).filter((m) => m.userData.primitive === 0);
      const r = readoutAt(planet, meshes, raycaster, state.legend);
      $('readout').textContent = formatReadout(r);
      document.body.dataset.hover = r ? JSON.stringify(r) : '';
    });
    $('lod').addEventListener('change', (e) => showLevel(Number(e.target.value)).catch(fail));

    setSun(Number($('sun').value));
    applyLayer('tint');
    describe(0);
    requestAnimationFrame(() => {
      render();
      document.body.dataset.ready = '1';
      window.viewerReady = true;
    });
  },
  undefined,
  (error) => fail(new Error(`cannot load ${modelUrl}: ${error.message || error}`)),
);
