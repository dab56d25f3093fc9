// The run's texturing masks and climate layers (mask_*.png, climate_*.png, masks.json)
// read by the viewer, so the hover readout and the colour layers have discharge and temperature
// without the optional glb attributes ([export] mask_attributes = false, the default).
//
// masks.json (planet/masks_output.cpp): 16-bit grey equirectangular PNGs, pixel (x, y) centred at
// lon = -180 + (x + 0.5) * 360 / width, lat = 90 - (y + 0.5) * 180 / height, each value the
// mesh's field interpolated barycentrically at that centre; value = min + v / 65535 * (max - min).
// A canvas would reduce 16-bit PNGs to 8 bits, so the PNG is decoded here: zlib through the
// browser's DecompressionStream, then the five scanline filters of PNG (RFC 2083, section 6).

// Reads masks.json beside the model (its URL resolved against the page) and decodes the layers
// whose file is listed in `wanted` ({ flow: 'mask_flow.png', ... }). Resolves to
// { flow: MaskField, ... } with only the layers found; to {} when the run wrote no masks.
export async function loadMasks(modelUrl, wanted) {
  const base = new URL(modelUrl, window.location.href);
  const response = await fetch(new URL('masks.json', base));
  if (!response.ok) return {};
  const doc = await response.json();
  const fields = {};
  await Promise.all(Object.entries(wanted).map(async ([key, file]) => {
    const entry = (doc.files || []).find((f) => f.file === file);
    if (!entry) return;
    const png = await fetch(new URL(file, base));
    if (!png.ok) return;
    const image = await decodeGray16(await png.arrayBuffer());
    fields[key] = new MaskField(image, entry);
  }));
  return fields;
}

// One decoded layer: physical values sampled bilinearly between pixel centres.
export class MaskField {
  constructor(image, entry) {
    this.width = image.width;
    this.height = image.height;
    this.pixels = image.pixels;  // Uint16Array, row-major, north row first
    this.min = entry.min;
    this.max = entry.max;
    this.units = entry.units;
    this.file = entry.file;
  }

  // Value at latitude and longitude in degrees: bilinear between the four nearest pixel
  // centres, longitude wrapping at ±180°, latitude clamped at the first and last rows.
  sample(latDeg, lonDeg) {
    const fx = ((lonDeg + 180) / 360) * this.width - 0.5;
    const fy = ((90 - latDeg) / 180) * this.height - 0.5;
    const x0 = Math.floor(fx), y0 = Math.floor(fy);
    const tx = fx - x0, ty = fy - y0;
    const column = (x) => ((x % this.width) + this.width) % this.width;
    const row = (y) => Math.min(Math.max(y, 0), this.height - 1);
    const at = (x, y) => this.pixels[row(y) * this.width + column(x)];
    const v = (1 - ty) * ((1 - tx) * at(x0, y0) + tx * at(x0 + 1, y0)) +
              ty * ((1 - tx) * at(x0, y0 + 1) + tx * at(x0 + 1, y0 + 1));
    return this.min + (v / 65535) * (this.max - this.min);
  }
}

async function inflate(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

// A non-interlaced 16-bit greyscale PNG (what export/png_io.h's encodePngGray16 writes) into
// { width, height, pixels: Uint16Array }. Throws on any other kind of PNG.
export async function decodeGray16(buffer) {
  const data = new DataView(buffer);
  const signature = [137, 80, 78, 71, 13, 10, 26, 10];
  if (signature.some((b, i) => data.getUint8(i) !== b)) throw new Error('not a PNG');
  let width = 0, height = 0;
  const idat = [];
  for (let at = 8; at + 8 <= buffer.byteLength;) {
    const length = data.getUint32(at);
    const type = String.fromCharCode(...new Uint8Array(buffer, at + 4, 4));
    if (type === 'IHDR') {
      width = data.getUint32(at + 8);
      height = data.getUint32(at + 12);
      const [depth, colour, , , interlace] = new Uint8Array(buffer, at + 16, 5);
      if (depth !== 16 || colour !== 0 || interlace !== 0) {
        throw new Error(`PNG is not 16-bit grey without interlacing (depth ${depth}, type ${colour})`);
      }
    } else if (type === 'IDAT') {
      idat.push(new Uint8Array(buffer, at + 8, length));
    } else if (type === 'IEND') {
      break;
    }
    at += 12 + length;
  }
  const raw = await inflate(new Blob(idat));
  const stride = width * 2, bpp = 2;
  if (raw.length < height * (stride + 1)) throw new Error('PNG data is too short');
  const rows = new Uint8Array(height * stride);
  for (let y = 0; y < height; ++y) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const out = rows.subarray(y * stride, (y + 1) * stride);
    const up = y > 0 ? rows.subarray((y - 1) * stride, y * stride) : new Uint8Array(stride);
    for (let i = 0; i < stride; ++i) {
      const a = i >= bpp ? out[i - bpp] : 0, b = up[i], c = i >= bpp ? up[i - bpp] : 0;
      let predictor = 0;
      if (filter === 1) predictor = a;
      else if (filter === 2) predictor = b;
      else if (filter === 3) predictor = (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
        predictor = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      } else if (filter !== 0) {
        throw new Error(`PNG filter ${filter} at row ${y}`);
      }
      out[i] = (line[i] + predictor) & 0xff;
    }
  }
  const pixels = new Uint16Array(width * height);
  for (let i = 0; i < pixels.length; ++i) pixels[i] = (rows[2 * i] << 8) | rows[2 * i + 1];
  return { width, height, pixels };
}
