// Pixels of a viewer page's WebGL canvas (#view canvas), shared by the browser tests.

// Luminance statistics of the canvas and a subsample of its pixels (every 97th, RGB) for
// comparisons.
export const canvasStats = (page) => page.evaluate(() => {
  const source = document.querySelector('#view canvas');
  const copy = document.createElement('canvas');
  copy.width = source.width;
  copy.height = source.height;
  const context = copy.getContext('2d');
  context.drawImage(source, 0, 0);
  const data = context.getImageData(0, 0, copy.width, copy.height).data;
  let sum = 0, sum2 = 0, n = 0;
  const sample = [];
  for (let i = 0; i < data.length; i += 4) {
    const y = (data[i] + data[i + 1] + data[i + 2]) / 3;
    sum += y;
    sum2 += y * y;
    ++n;
    if ((i / 4) % 97 === 0) sample.push(data[i], data[i + 1], data[i + 2]);
  }
  const mean = sum / n;
  return { mean, variance: sum2 / n - mean * mean, sample };
});

// The share of the subsampled pixels whose RGB differ by more than 24 (sum of the three) between
// two canvasStats results.
export const changedFraction = (a, b) => {
  let changed = 0;
  for (let i = 0; i < a.sample.length; i += 3) {
    const d = Math.abs(a.sample[i] - b.sample[i]) + Math.abs(a.sample[i + 1] - b.sample[i + 1]) +
              Math.abs(a.sample[i + 2] - b.sample[i + 2]);
    if (d > 24) ++changed;
  }
  return changed / (a.sample.length / 3);
};
