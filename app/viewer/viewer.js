// planetgen viewer: loads a planet .glb (URL parameter `model`, default planet.glb) and shows it
// with an orbit camera, a sun, an ocean switch, colour layers with legends (layers.js), rivers
// and lakes, vertical exaggeration and a hover readout (water.js), level-of-detail selection
// (MSFT_lod levels) and chunk outlines. Discharge and relative rain come from the run's masks
// (masks.js) and the Rivers node when the glb has no _FLOW attribute ([export]
// mask_attributes = false, the default).
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
import { LAYERS, layerAvailable, layerColours, layerValues, rangeOf, showLegend } from './layers.js';
import { loadMasks } from './masks.js';
import { formatReadout, latLonOf, readoutAt, riverPoints, setExaggeration, toPlanet, waterNodes } from './water.js';

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

const state = {
  gltf: null,
  land: null,
  ocean: null,
  levels: [],        // Object3D per level of detail (loaded on demand)
  levelIds: [],      // glTF node index per level
  radius: 1,
  legend: null,      // [{id, name, colour}] from Land's extras
  tintIsBiome: false,  // COLOR_0 is the biome palette
  masks: {},         // decoded mask layers of the run (masks.js), e.g. flow
  seaLevel: 0,
  layer: 'tint',
  ranges: {},
  outlines: false,
};

// Land meshes of a level: the surface pieces and the chunks' skirts. A chunk's mesh (name
// Land_C0000, ...) holds its surface as primitive 0 and its skirt, if any, as primitive 1; an
// unchunked Land mesh holds only surface pieces (20 primitives in a default run's file).
function landMeshes(level) {
  const meshes = [];
  level.traverse((object) => {
    if (!object.isMesh) return;
    const association = state.gltf.parser.associations.get(object) || {};
    object.userData.primitive = association.primitives || 0;
    object.userData.skirt = object.name.includes('_C') && object.userData.primitive > 0;
    meshes.push(object);
  });
  return meshes;
}

// The level's land meshes without skirts, found once per level (the hover readout asks on every
// pointer move).
const surfaceMeshes = (level) =>
  (level.userData.surfaceMeshes ||= landMeshes(level).filter((m) => !m.userData.skirt));

function prepareLevel(level) {
  for (const mesh of landMeshes(level)) {
    const geometry = mesh.geometry;
    geometry.userData.tint ||= geometry.getAttribute('color');
    geometry.userData.layers ||= {};
    geometry.userData.values ||= {};
  }
}

function hasAttribute(name) {
  return Boolean(name) && landMeshes(state.levels[0]).some((mesh) => mesh.geometry.getAttribute(name));
}

// Per-vertex values of a layer on a mesh (cached on its geometry), null without a source.
function valuesOf(mesh, layer) {
  const geometry = mesh.geometry;
  if (layer in geometry.userData.values) return geometry.userData.values[layer];
  const m = toPlanet(state.land.parent, mesh);
  const position = geometry.getAttribute('position');
  const p = new THREE.Vector3();
  const where = (i) => latLonOf(p.fromBufferAttribute(position, i).applyMatrix4(m));
  const context = { masks: state.masks, seaLevel: state.seaLevel };
  return (geometry.userData.values[layer] = layerValues(geometry, layer, where, context));
}

function applyLayer(layer) {
  state.layer = layer;
  if (layer !== 'tint' && !state.ranges[layer]) {
    const arrays = landMeshes(state.levels[0]).map((mesh) => valuesOf(mesh, layer)).filter(Boolean);
    state.ranges[layer] = rangeOf(arrays);
  }
  for (const level of state.levels) {
    if (!level) continue;
    for (const mesh of landMeshes(level)) {
      const geometry = mesh.geometry;
      let colours = geometry.userData.tint;
      if (layer !== 'tint') {
        const values = valuesOf(mesh, layer);
        colours = geometry.userData.layers[layer] ||=
          values ? layerColours(layer, values, state.ranges[layer], state.legend)
                 : geometry.userData.tint;
      }
      geometry.setAttribute('color', colours);
    }
  }
  showLegend($('legend'), layer, { range: state.ranges[layer], biomeLegend: state.legend,
                                   tintIsBiome: state.tintIsBiome });
  render();
  document.body.dataset.layer = layer;
}

// Whether COLOR_0 is the biome palette: the colours of the first vertices match their _BIOME's
// legend colour.
function tintIsBiomePalette() {
  const mesh = landMeshes(state.levels[0]).find((m) => m.geometry.getAttribute('_biome'));
  if (!mesh || !state.legend) return false;
  const tint = mesh.geometry.getAttribute('color');
  const biome = mesh.geometry.getAttribute('_biome');
  if (!tint) return false;
  const c = new THREE.Color();
  for (let i = 0; i < Math.min(tint.count, 64); ++i) {
    const entry = state.legend[Math.round(biome.getX(i))];
    if (!entry) return false;
    c.set(entry.colour);
    if (Math.abs(c.r - tint.getX(i)) + Math.abs(c.g - tint.getY(i)) + Math.abs(c.b - tint.getZ(i)) > 0.03) {
      return false;
    }
  }
  return true;
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
      if (mesh.userData.skirt || !mesh.name.includes('_C')) continue;
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
  for (const mesh of surfaceMeshes(state.levels[level])) {
    vertices += mesh.geometry.getAttribute('position').count;
    triangles += mesh.geometry.getIndex().count / 3;
    if (mesh.name.includes('_C')) ++chunks;
  }
  setStatus(`${modelUrl}\nLOD ${level}: ${vertices.toLocaleString()} vertices, ` +
            `${triangles.toLocaleString()} triangles` + (chunks ? `, ${chunks} chunks` : ''));
}

const modelUrl = new URLSearchParams(window.location.search).get('model') || 'planet.glb';

// The run's flow mask and precipitation map (masks.json beside the model), for the discharge
// and relative rain of the readout and the discharge layer when the glb has no _FLOW attribute.
const masksLoaded = loadMasks(modelUrl, { flow: 'mask_flow.png', precipitation: 'climate_precipitation.png' })
  .catch((error) => {
    console.warn(`masks not read: ${error.message || error}`);
    return {};
  });

// [export] meshopt = true files need the decoder; KHR_mesh_quantization needs nothing.
new GLTFLoader().setMeshoptDecoder(MeshoptDecoder).load(
  modelUrl,
  async (gltf) => {
    state.masks = await masksLoaded;
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

    state.seaLevel = (state.land.parent.userData && state.land.parent.userData.sea_level_m) || 0;
    state.tintIsBiome = tintIsBiomePalette();
    $('layer').replaceChildren(...Object.entries(LAYERS).map(([id, layer]) => {
      const option = new Option(`${layer.label} (${id === 'tint' ? 'COLOR_0' : layer.unit.split(' ')[0]})`, id);
      option.disabled = !layerAvailable(id, hasAttribute, { masks: state.masks });
      return option;
    }));
    $('outlines').disabled = !landMeshes(state.levels[0]).some((m) => m.name.includes('_C'));

    $('layer').addEventListener('change', (e) => applyLayer(e.target.value));
    $('sun').addEventListener('input', (e) => setSun(Number(e.target.value)));
    $('ocean').addEventListener('change', (e) => {
      if (state.ocean) state.ocean.visible = e.target.checked;
      render();
    });
    $('outlines').addEventListener('change', (e) => setOutlines(e.target.checked));
    // Rivers and lakes, vertical exaggeration, hover readout (water.js).
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
    const rivers = riverPoints(planet, gltf.scene.getObjectByName('Rivers'));
    const raycaster = new THREE.Raycaster();
    const pointer = new THREE.Vector2();
    renderer.domElement.addEventListener('pointermove', (e) => {
      const rect = renderer.domElement.getBoundingClientRect();
      pointer.set(((e.clientX - rect.left) / rect.width) * 2 - 1,
                  -((e.clientY - rect.top) / rect.height) * 2 + 1);
      raycaster.setFromCamera(pointer, camera);
      const level = state.levels.find((l) => l && l.visible) || state.levels[0];
      const meshes = surfaceMeshes(level);
      const r = readoutAt(planet, meshes, raycaster, state.legend, state.masks, rivers);
      $('readout').textContent = formatReadout(r);
      document.body.dataset.hover = r ? JSON.stringify(r) : '';
    });
    $('lod').addEventListener('change', (e) => showLevel(Number(e.target.value)).catch(fail));

    // For tests and scripts: lookAt points the camera straight down at a latitude and longitude
    // (degrees) from `distance` planet radii, so the middle of the view lies over that point;
    // cameraPosition / setCameraPosition save and restore the view.
    const placeCamera = (position) => {
      camera.position.copy(position);
      controls.target.set(0, 0, 0);
      controls.update();
      render();
    };
    window.viewer = {
      lookAt(latDeg, lonDeg, distance = 1.6) {
        const lat = THREE.MathUtils.degToRad(latDeg), lon = THREE.MathUtils.degToRad(lonDeg);
        const direction = new THREE.Vector3(Math.cos(lat) * Math.cos(lon), Math.sin(lat),
                                            -Math.cos(lat) * Math.sin(lon));
        direction.transformDirection(planet.matrixWorld);
        placeCamera(direction.multiplyScalar(state.radius * distance));
      },
      cameraPosition: () => camera.position.toArray(),
      setCameraPosition: (xyz) => placeCamera(new THREE.Vector3().fromArray(xyz)),
    };

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
