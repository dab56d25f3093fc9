#pragma once
// Plain image buffers the map renderers fill and the PNG encoders read.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "export/colour_ramps.h"

namespace planet_export {

// 8-bit sRGB, row-major from the top-left pixel, 3 bytes per pixel.
struct RgbImage {
  int width = 0;
  int height = 0;
  std::vector<uint8_t> pixels;

  RgbImage() = default;
  RgbImage(int w, int h) : width(w), height(h), pixels(size_t(w) * size_t(h) * 3, 0) {}
  void set(int x, int y, Rgb c) {
    uint8_t* p = &pixels[(size_t(y) * size_t(width) + size_t(x)) * 3];
    p[0] = toByte(c.r);
    p[1] = toByte(c.g);
    p[2] = toByte(c.b);
  }
  Rgb get(int x, int y) const {
    const uint8_t* p = &pixels[(size_t(y) * size_t(width) + size_t(x)) * 3];
    return Rgb{p[0] / 255.0f, p[1] / 255.0f, p[2] / 255.0f};
  }
};

// The w x h window of image whose top-left pixel is (x, y), clamped to the image; the window
// wraps around in x (an equirectangular map is periodic in longitude).
inline RgbImage cropWrapped(const RgbImage& image, int x, int y, int w, int h) {
  w = std::min(w, image.width);
  h = std::min(h, image.height);
  y = std::clamp(y, 0, image.height - h);
  RgbImage out(w, h);
  for (int j = 0; j < h; ++j)
    for (int i = 0; i < w; ++i)
      out.set(i, j, image.get(((x + i) % image.width + image.width) % image.width, y + j));
  return out;
}

// 16-bit single channel, row-major from the top-left pixel.
struct Gray16Image {
  int width = 0;
  int height = 0;
  std::vector<uint16_t> pixels;

  Gray16Image() = default;
  Gray16Image(int w, int h) : width(w), height(h), pixels(size_t(w) * size_t(h), 0) {}
};

// 32-bit float single channel, row-major from the top-left pixel.
struct FloatImage {
  int width = 0;
  int height = 0;
  std::vector<float> pixels;

  FloatImage() = default;
  FloatImage(int w, int h) : width(w), height(h), pixels(size_t(w) * size_t(h), 0.0f) {}
};

}  // namespace planet_export
