// Rivers and lakes, vertical exaggeration and the hover readout of the planetgen viewer.
// Kept apart from viewer.js, which wires these into its controls.
//
// Frame: the Planet node's frame is planet-centred metres, +Y north, longitude 0 at +X and
// east toward -Z (geodesy/sphere_mesh.h); its extras carry radius_m and sea_level_m.

import * as THREE from 'three';

// The Rivers and Lakes nodes (absent in files written without rivers).
export function waterNodes(scene) {
  return ['Rivers', 'Lakes'].map((name) => scene.getObjectByName(name)).filter(Boolean);
}

// The inverse of the Planet node's world matrix, with the world matrices under it brought up to
// date: the base of toPlanet for every object under planet (one update for all of them).
export function planetFrame(planet) {
  planet.updateWorldMatrix(true, true);
  return new THREE.Matrix4().copy(planet.matrixWorld).invert();
}

// Matrix from an object's local frame to the Planet node's frame (frame: planetFrame(planet),
// computed here when not given).
export function toPlanet(planet, object, frame = planetFrame(planet)) {
  return frame.clone().multiply(object.matrixWorld);
}

// Heights above the sea scaled by k about the sea-level sphere, for every mesh and line under
// planet (land of every loaded level, ocean, rivers, lakes). The original positions are kept,
// so any k can be set again; k = 1 restores the file's geometry.
export function setExaggeration(planet, k) {
  const extras = planet.userData || {};
  const sea = (extras.radius_m || 0) + (extras.sea_level_m || 0);
  const p = new THREE.Vector3();
  const frame = planetFrame(planet);
  planet.traverse((object) => {
    if (!object.geometry || !object.geometry.getAttribute('position')) return;
    const geometry = object.geometry;
    const position = geometry.getAttribute('position');
    const base = (geometry.userData.basePositions ||= position.array.slice());
    const m = toPlanet(planet, object, frame);
    const inverse = m.clone().invert();
    const out = position.array;
    for (let i = 0; i < position.count; ++i) {
      p.fromArray(base, 3 * i).applyMatrix4(m);
      const r = p.length();
      if (r > 0 && sea > 0) p.multiplyScalar((sea + k * (r - sea)) / r);
      p.applyMatrix4(inverse).toArray(out, 3 * i);
    }
    position.needsUpdate = true;
    geometry.computeBoundingSphere();
    geometry.computeBoundingBox();
  });
}

// Annual mean temperature (degrees C) as export/biomes.h computes it for the biomes.
export function temperatureC(latDeg, heightAboveSeaM) {
  return 27 - 52 * Math.pow(Math.abs(latDeg / 90), 1.7) - 6.5 * Math.max(heightAboveSeaM, 0) / 1000;
}

// Latitude and longitude (degrees) of a point given in the Planet node's frame.
export function latLonOf(p) {
  return {
    lat: THREE.MathUtils.radToDeg(Math.asin(p.y / p.length())),
    lon: THREE.MathUtils.radToDeg(Math.atan2(-p.z, p.x)),
  };
}

// The vertices of the Rivers node (LINES, _DISCHARGE per vertex) as unit directions in the
// Planet node's frame with their discharge, for the readout: a river polyline passes through
// every channel vertex of the mesh, where its _DISCHARGE is that vertex's discharge. Null without
// rivers.
export function riverPoints(planet, rivers) {
  if (!rivers) return null;
  const directions = [], discharge = [];
  const p = new THREE.Vector3();
  const frame = planetFrame(planet);
  rivers.traverse((object) => {
    const geometry = object.geometry;
    const q = geometry && geometry.getAttribute('_discharge');
    if (!q) return;
    const position = geometry.getAttribute('position');
    const base = geometry.userData.basePositions;  // unexaggerated, if setExaggeration ran
    const m = toPlanet(planet, object, frame);
    for (let i = 0; i < position.count; ++i) {
      (base ? p.fromArray(base, 3 * i) : p.fromBufferAttribute(position, i)).applyMatrix4(m).normalize();
      directions.push(p.x, p.y, p.z);
      discharge.push(q.getX(i));
    }
  });
  return directions.length ? { directions: Float64Array.from(directions), discharge } : null;
}

// Discharge at a mesh vertex (unit direction u) when a river point lies on it: the largest
// _DISCHARGE of the river points within `radians` of u (a tributary's last point lies on the
// larger river with the smaller discharge), else null.
function riverDischargeAt(points, u, radians) {
  if (!points) return null;
  const cosLimit = Math.cos(radians);
  let best = null;
  const d = points.directions;
  for (let i = 0; i < points.discharge.length; ++i) {
    if (d[3 * i] * u.x + d[3 * i + 1] * u.y + d[3 * i + 2] * u.z < cosLimit) continue;
    if (best === null || points.discharge[i] > best) best = points.discharge[i];
  }
  return best;
}

// What lies under the pointer: latitude, longitude and the land's attributes at the hit point
// (barycentric interpolation over the hit triangle, the biome of its nearest corner). Fields
// the glb lacks come from the run's masks (masks.js: `precipitation` for the rain relative to
// the land mean) or, for the temperature, from the formula the masks use. The discharge: the
// _FLOW attribute interpolated when the glb has it; else the discharge of the nearest corner
// when a river passes through that vertex (`rivers`, from riverPoints; exact), else the flow
// mask at the point (`discharge_source` says which). Returns null when the ray misses the land.
export function readoutAt(planet, meshes, raycaster, legend, masks = {}, rivers = null) {
  const hits = raycaster.intersectObjects(meshes, false);
  if (!hits.length || !hits[0].face) return null;
  const hit = hits[0];
  const object = hit.object;
  const geometry = object.geometry;
  const { a, b, c } = hit.face;
  const local = object.worldToLocal(hit.point.clone());
  const position = geometry.getAttribute('position');
  const tri = new THREE.Triangle(
    new THREE.Vector3().fromBufferAttribute(position, a),
    new THREE.Vector3().fromBufferAttribute(position, b),
    new THREE.Vector3().fromBufferAttribute(position, c));
  const w = tri.getBarycoord(local, new THREE.Vector3());
  const value = (name) => {
    const attribute = geometry.getAttribute(name);
    if (!attribute) return null;
    return w.x * attribute.getX(a) + w.y * attribute.getX(b) + w.z * attribute.getX(c);
  };
  const toP = toPlanet(planet, object);
  const { lat, lon } = latLonOf(local.clone().applyMatrix4(toP));
  const elevation = value('_elevation');
  const sea = (planet.userData && planet.userData.sea_level_m) || 0;
  const nearest = [a, b, c][[w.x, w.y, w.z].indexOf(Math.max(w.x, w.y, w.z))];
  const biomeAttribute = geometry.getAttribute('_biome');
  const biomeId = biomeAttribute ? Math.round(biomeAttribute.getX(nearest)) : null;
  const biome = legend && biomeId !== null && legend[biomeId] ? legend[biomeId].name : null;
  const corner = (k) => new THREE.Vector3().fromBufferAttribute(position, k).applyMatrix4(toP);
  const flow = value('_flow');
  let discharge = flow !== null ? Math.pow(10, flow) - 1 : null;
  let source = flow !== null ? '_FLOW' : null;
  if (discharge === null && rivers) {
    // Within 5 % of the hit triangle's mean edge: river points between vertices lie at least a
    // fraction 1/subdivisions of an edge away.
    const [pa, pb, pc] = [a, b, c].map(corner);
    const edge = (pa.angleTo(pb) + pb.angleTo(pc) + pc.angleTo(pa)) / 3;
    discharge = riverDischargeAt(rivers, corner(nearest).normalize(), 0.05 * edge);
    if (discharge !== null) source = 'river';
  }
  if (discharge === null && masks.flow) {
    discharge = Math.pow(10, masks.flow.sample(lat, lon)) - 1;
    source = 'flow mask';
  }
  const temperature = value('_temperature');
  return {
    lat, lon,
    elevation_m: elevation,
    rainfall: value('_rainfall'),
    rain_relative: masks.precipitation ? masks.precipitation.sample(lat, lon) : null,
    temperature_c: temperature !== null ? temperature
                                        : temperatureC(lat, elevation !== null ? elevation - sea : 0),
    biome,
    discharge_m3_s: discharge,
    discharge_source: source,
  };
}

export function formatReadout(r) {
  if (!r) return '';
  const f = (v, digits, unit) => (v === null || v === undefined ? '–' : `${v.toFixed(digits)} ${unit}`);
  const relative = r.rain_relative !== null && r.rain_relative !== undefined
    ? ` (${r.rain_relative.toFixed(2)}× land mean)` : '';
  return `lat ${r.lat.toFixed(2)}°, lon ${r.lon.toFixed(2)}°\n` +
         `elevation ${f(r.elevation_m, 0, 'm')}\n` +
         `rainfall ${f(r.rainfall, 3, 'drops/sr')}${relative}\n` +
         `temperature ${f(r.temperature_c, 1, '°C')}, biome ${r.biome || '–'}\n` +
         `discharge ${f(r.discharge_m3_s, r.discharge_m3_s !== null && r.discharge_m3_s < 10 ? 1 : 0, 'm³/s')}` +
         (r.discharge_source ? ` (${r.discharge_source})` : '');
}
