// Colour layers of the planetgen viewer and their legends (with units). viewer.js applies them
// to the land meshes; this file knows what each layer shows and how it is coloured.
//
// Each layer reads a per-vertex value: from a glb attribute when the file has it (GLTFLoader
// lower-cases the names: _ELEVATION -> _elevation), else from the run's masks (masks.js,
// sampled at the vertex's latitude and longitude) or from a formula (temperature).

import * as THREE from 'three';
import { temperatureC } from './water.js';

// Colour ramps: stops of sRGB colours (three.js converts them to its linear working space).
const RAMPS = {
  elevation: ['#1b3a6b', '#3c78b4', '#a7d3e0', '#e8dca0', '#5e9a3e', '#8d7b52', '#f5f5f5'],
  rainfall: ['#ffffd9', '#c7e9b4', '#41b6c4', '#225ea8', '#081d58'],
  erosion: ['#b2182b', '#ef8a62', '#f7f7f7', '#67a9cf', '#2166ac'],  // red erosion, blue deposit
  temperature: ['#313695', '#74add1', '#e0f3f8', '#fee090', '#f46d43', '#a50026'],
  discharge: ['#f3efe6', '#c6dbef', '#6baed6', '#2171b5', '#08306b'],
};
const rampCache = {};
function rampColour(name, t, target) {
  const stops = (rampCache[name] ||= RAMPS[name].map((hex) => new THREE.Color(hex)));
  const x = Math.min(Math.max(t, 0), 1) * (stops.length - 1);
  const i = Math.min(Math.floor(x), stops.length - 2);
  return target.copy(stops[i]).lerp(stops[i + 1], x - i);
}

// The hypsometric and bathymetric tint of COLOR_0 when the file is written with
// [export] color = "terrain" (export/colour_ramps.cpp, default TerrainPalette): [label, sRGB].
const TERRAIN_TINT = [
  ['below −3000 m (deep sea floor)', '#1f4f94'],
  ['−180 … 0 m (shelf)', '#6fb2d9'],
  ['0 … 30 m (beach)', '#d9c68f'],
  ['30 … 600 m (lowland)', '#8fae5c'],
  ['600 … 2000 m (upland)', '#b5ad6a'],
  ['2000 … 3500 m (rock)', '#8a7c70'],
  ['above 4200 m (snow)', '#f4f6f8'],
];

// Layer id -> { label, unit, source attribute }. `unit` is what the legend's title states.
export const LAYERS = {
  tint: { label: 'tint', unit: '' },
  biome: { label: 'biome', unit: 'class (export/biomes.h)', attribute: '_biome' },
  elevation: { label: 'elevation', unit: 'm', attribute: '_elevation' },
  rainfall: { label: 'rainfall', unit: 'drops/sr', attribute: '_rainfall' },
  erosion: { label: 'erosion / deposition', unit: 'm', attribute: '_erosion' },
  temperature: { label: 'temperature', unit: '°C', attribute: '_temperature' },
  discharge: { label: 'river discharge', unit: 'm³/s', attribute: '_flow' },
};

// Per-vertex values of a layer for one land mesh. `where(i)` gives vertex i's {lat, lon} in
// degrees; `context` holds the masks and the sea level. Returns null when there is no source.
export function layerValues(geometry, layer, where, context) {
  const count = geometry.getAttribute('position').count;
  const attribute = LAYERS[layer].attribute && geometry.getAttribute(LAYERS[layer].attribute);
  const values = new Float32Array(count);
  if (attribute) {
    for (let i = 0; i < count; ++i) values[i] = attribute.getX(i);
  } else if (layer === 'temperature' && geometry.getAttribute('_elevation')) {
    const elevation = geometry.getAttribute('_elevation');
    for (let i = 0; i < count; ++i) {
      values[i] = temperatureC(where(i).lat, elevation.getX(i) - context.seaLevel);
    }
  } else if (layer === 'discharge' && context.masks.flow) {
    for (let i = 0; i < count; ++i) {
      const { lat, lon } = where(i);
      values[i] = context.masks.flow.sample(lat, lon);
    }
  } else {
    return null;
  }
  if (layer === 'discharge') {
    for (let i = 0; i < count; ++i) values[i] = Math.pow(10, values[i]) - 1;  // log10(1 + Q)
  }
  return values;
}

// Whether the layer can be shown: its attribute is there or its fallback source is.
export function layerAvailable(layer, hasAttribute, context) {
  if (layer === 'tint') return true;
  if (hasAttribute(LAYERS[layer].attribute)) return true;
  if (layer === 'temperature') return hasAttribute('_elevation');
  if (layer === 'discharge') return Boolean(context.masks.flow);
  return false;
}

// Range of the values over the first level, for the ramps and legends.
export function rangeOf(arrays) {
  let lo = Infinity, hi = -Infinity, magnitude = 0;
  for (const values of arrays) {
    for (const v of values) {
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
      magnitude = Math.max(magnitude, Math.abs(v));
    }
  }
  return Number.isFinite(lo) ? { lo, hi, magnitude } : null;
}

// Ramp position in [0, 1] of a value.
function rampPosition(layer, v, r) {
  if (layer === 'elevation' || layer === 'temperature') return (v - r.lo) / Math.max(r.hi - r.lo, 1e-9);
  if (layer === 'rainfall') return v / Math.max(r.hi, 1e-12);
  if (layer === 'erosion') return 0.5 + 0.5 * v / Math.max(r.magnitude, 1e-12);
  // discharge: logarithmic, 0 at no flow
  return Math.log10(1 + Math.max(v, 0)) / Math.max(Math.log10(1 + r.hi), 1e-12);
}

// Linear RGB vertex colours of a layer from its values.
export function layerColours(layer, values, range, biomeLegend) {
  const colours = new Float32Array(values.length * 3);
  const c = new THREE.Color();
  for (let i = 0; i < values.length; ++i) {
    if (layer === 'biome') {
      const entry = biomeLegend && biomeLegend[Math.round(values[i])];
      c.set(entry ? entry.colour : '#ff00ff');
    } else {
      rampColour(layer, rampPosition(layer, values[i], range), c);
    }
    c.toArray(colours, 3 * i);
  }
  return new THREE.BufferAttribute(colours, 3);
}

// Value at ramp position t (the inverse of rampPosition), for the legend's labels.
function valueAt(layer, t, r) {
  if (layer === 'elevation' || layer === 'temperature') return r.lo + t * (r.hi - r.lo);
  if (layer === 'rainfall') return t * r.hi;
  if (layer === 'erosion') return (2 * t - 1) * r.magnitude;
  return Math.pow(1 + r.hi, t) - 1;
}

function format(v) {
  const a = Math.abs(v);
  if (a !== 0 && (a >= 1e5 || a < 1e-2)) return v.toExponential(1);
  return a >= 100 ? v.toFixed(0) : v.toPrecision(3);
}

// Fills `box` with the legend of a layer: a title naming the layer and its unit
// (data-unit holds the unit alone, data-layer the layer) and one swatch per row.
// `tintIsBiome` says whether COLOR_0 is the biome palette ([export] color = "biome").
export function showLegend(box, layer, { range, biomeLegend, tintIsBiome }) {
  box.replaceChildren();
  const title = document.createElement('div');
  title.className = 'title';
  box.append(title);
  const row = (colour, text) => {
    const div = document.createElement('div');
    if (colour) {
      const swatch = document.createElement('span');
      swatch.className = 'swatch';
      swatch.style.background = colour;
      div.append(swatch);
    }
    div.append(text);
    box.append(div);
  };
  let unit = LAYERS[layer].unit;
  let label = LAYERS[layer].label;
  if (layer === 'biome' || (layer === 'tint' && tintIsBiome)) {
    if (layer === 'tint') label = 'tint (COLOR_0): biome palette', unit = LAYERS.biome.unit;
    for (const entry of biomeLegend || []) row(entry.colour, `${entry.id} ${entry.name}`);
  } else if (layer === 'tint') {
    label = 'tint (COLOR_0): height above sea level';
    unit = 'm';
    for (const [text, colour] of TERRAIN_TINT) row(colour, text);
  } else if (range) {
    const stops = RAMPS[layer];
    for (let k = stops.length - 1; k >= 0; --k) {
      const t = k / (stops.length - 1);
      row(stops[k], `${format(valueAt(layer, t, range))} ${unit}`);
    }
    if (layer === 'erosion') row(null, 'red: eroded, blue: deposited');
    if (layer === 'discharge') row(null, 'logarithmic scale');
  }
  title.textContent = `${label} (${unit})`;
  title.dataset.unit = unit;
  title.dataset.layer = layer;
}
