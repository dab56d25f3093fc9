#pragma once
// A colour bar with labels drawn into the bottom of a map (text from stb_easy_font).

#include <functional>
#include <string>
#include <string_view>

#include "export/image.h"

namespace planet_export {

struct Legend {
  std::function<Rgb(double)> ramp;  // colour at t in [0, 1] along the bar, left to right
  std::string title;                // left of the bar
  std::string left_label;           // under the left end, middle, and right end of the bar
  std::string middle_label;
  std::string right_label;
};

// Height in pixels of the strip drawLegend covers at the bottom of an image of this height.
int legendHeight(int image_height);

// Darkens a strip at the bottom of the image and draws the bar and labels on it. Text that
// does not fit is clipped at the image border.
void drawLegend(RgbImage& image, const Legend& legend);

// Text with its top-left corner at (x, y), each font pixel drawn as scale x scale pixels.
void drawText(RgbImage& image, int x, int y, std::string_view text, Rgb colour, int scale);
int textWidth(std::string_view text, int scale);

// Short label for a value: 3 significant digits (whole numbers from 1000 to 10^7), with a unit
// if non-empty.
std::string formatValue(double value, const std::string& units);

}  // namespace planet_export
