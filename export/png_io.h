#pragma once
// PNG encoding to memory and atomic PNG files. Encoding to memory lets a caller stage the
// bytes in an OutputTransaction instead of writing them directly.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "export/image.h"

namespace planet_export {

// 8-bit RGB PNG (libpng, default compression and filters). Throws std::runtime_error if the
// image is empty, its pixel count does not match its size, or encoding fails. Thread-safe: each
// call has its own encoder, and the bytes depend only on the pixels.
std::string encodePngRgb8(const RgbImage& image);

// 16-bit grayscale PNG (libpng), samples as stored (no gamma chunk): for heightmaps. Throws
// std::runtime_error on an empty or inconsistent image or a libpng error. Thread-safe.
std::string encodePngGray16(const Gray16Image& image);

// 8-bit RGBA PNG of width x height pixels, 4 bytes each, row-major from the top-left, the
// samples as stored (data, not colour: no gamma chunk, alpha not premultiplied). Throws
// std::runtime_error on an empty or inconsistent image or a libpng error. Thread-safe.
std::string encodePngRgba8(int width, int height, const std::vector<uint8_t>& pixels);

// encode, then writeFileAtomic. Throws std::runtime_error naming the path on failure.
void writePngRgb8(const std::filesystem::path& path, const RgbImage& image);
void writePngGray16(const std::filesystem::path& path, const Gray16Image& image);

}  // namespace planet_export
