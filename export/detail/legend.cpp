#include "export/detail/legend.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

// stb_easy_font is a header of static functions; this file uses only some of them.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include <stb_easy_font.h>
#pragma GCC diagnostic pop

namespace planet_export {
namespace {

struct FontVertex {
  float x, y, z;
  unsigned char colour[4];
};

void fillRect(RgbImage& image, int x0, int y0, int x1, int y1, Rgb colour) {
  x0 = std::max(x0, 0);
  y0 = std::max(y0, 0);
  x1 = std::min(x1, image.width);
  y1 = std::min(y1, image.height);
  for (int y = y0; y < y1; ++y) {
    for (int x = x0; x < x1; ++x) image.set(x, y, colour);
  }
}

}  // namespace

int textWidth(std::string_view text, int scale) {
  std::string copy(text);
  return stb_easy_font_width(copy.data()) * scale;
}

void drawText(RgbImage& image, int x, int y, std::string_view text, Rgb colour, int scale) {
  std::string copy(text);
  // ~270 bytes per character according to stb_easy_font; leave headroom.
  std::vector<FontVertex> quads(copy.size() * 24 + 16);
  const int quad_count = stb_easy_font_print(0.0f, 0.0f, copy.data(), nullptr, quads.data(),
                                             int(quads.size() * sizeof(FontVertex)));
  for (int q = 0; q < quad_count; ++q) {
    const FontVertex* corner = &quads[size_t(q) * 4];
    // Quads are axis-aligned: corners 0 and 2 are opposite.
    const auto px = [&](float v) { return x + int(std::lround(v * float(scale))); };
    const auto py = [&](float v) { return y + int(std::lround(v * float(scale))); };
    fillRect(image, px(std::min(corner[0].x, corner[2].x)), py(std::min(corner[0].y, corner[2].y)),
             px(std::max(corner[0].x, corner[2].x)), py(std::max(corner[0].y, corner[2].y)),
             colour);
  }
}

std::string formatValue(double value, const std::string& units) {
  char text[64];
  // Whole numbers up to millions read better than 1.95e+03.
  const double magnitude = std::abs(value);
  std::snprintf(text, sizeof(text), magnitude >= 1000.0 && magnitude < 1e7 ? "%.0f" : "%.3g",
                value);
  return units.empty() ? std::string(text) : std::string(text) + " " + units;
}

int legendHeight(int image_height) {
  return std::clamp(image_height / 10, 24, 160);
}

void drawLegend(RgbImage& image, const Legend& legend) {
  const int strip = std::min(legendHeight(image.height), image.height);
  const int top = image.height - strip;
  // Darken rather than cover, so the map still shows faintly under the strip.
  for (int y = top; y < image.height; ++y) {
    for (int x = 0; x < image.width; ++x) image.set(x, y, scaled(image.get(x, y), 0.25));
  }
  const int scale = std::max(1, strip / 30);
  const int bar_x0 = image.width * 3 / 10;
  const int bar_x1 = image.width * 7 / 10;
  const int bar_y0 = top + strip / 6;
  const int bar_y1 = bar_y0 + std::max(3, strip * 3 / 10);
  for (int x = bar_x0; x < bar_x1; ++x) {
    const double t = bar_x1 - bar_x0 > 1 ? double(x - bar_x0) / double(bar_x1 - bar_x0 - 1) : 0.5;
    fillRect(image, x, bar_y0, x + 1, bar_y1, legend.ramp(t));
  }
  const Rgb text_colour{0.95f, 0.95f, 0.95f};
  const int label_y = bar_y1 + std::max(2, strip / 12);
  const auto centred = [&](int cx, const std::string& text) {
    drawText(image, cx - textWidth(text, scale) / 2, label_y, text, text_colour, scale);
  };
  centred(bar_x0, legend.left_label);
  centred((bar_x0 + bar_x1) / 2, legend.middle_label);
  centred(bar_x1, legend.right_label);
  // The title left of the bar, in smaller letters if it would run into the bar.
  int title_scale = scale;
  const auto title_room = [&](int s) { return bar_x0 - 3 * s * 6 - 2 * s; };
  while (title_scale > 1 && textWidth(legend.title, title_scale) > title_room(title_scale))
    --title_scale;
  const int title_x = bar_x0 - 3 * title_scale * 6 - textWidth(legend.title, title_scale);
  drawText(image, std::max(2 * title_scale, title_x), (bar_y0 + bar_y1) / 2 - 4 * title_scale,
           legend.title, text_colour, title_scale);
}

}  // namespace planet_export
