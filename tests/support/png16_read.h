#pragma once
// A 16-bit grayscale PNG decoded with libpng's own reader (not the writer's code), for the tests
// that check heightmaps.

#include <csetjmp>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <png.h>

namespace test_support {

struct Png16 {
  int width = 0;
  int height = 0;
  int bit_depth = 0;
  int colour_type = -1;
  std::vector<uint16_t> samples;  // row-major from the top-left
};

namespace detail {

struct PngSource {
  const std::string* bytes;
  size_t at;
};

inline void readFromString(png_structp png, png_bytep data, png_size_t length) {
  auto* s = static_cast<PngSource*>(png_get_io_ptr(png));
  if (s->at + length > s->bytes->size()) png_error(png, "read past the end");
  std::memcpy(data, s->bytes->data() + s->at, length);
  s->at += length;
}

// The libpng calls, each behind its own setjmp with no C++ object in its frame (a longjmp
// skips destructors). Return false when libpng reports an error.
inline bool readInfo(png_structp png, png_infop info, PngSource* source) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_set_read_fn(png, source, readFromString);
  png_read_info(png, info);
  return true;
}

inline bool readRow(png_structp png, png_bytep row) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_read_row(png, row, nullptr);
  return true;
}

}  // namespace detail

// Decodes bytes; width stays 0 when libpng refuses them.
inline Png16 decodePng16(const std::string& bytes) {
  Png16 out;
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  detail::PngSource source{&bytes, 0};
  if (detail::readInfo(png, info, &source)) {
    const int width = int(png_get_image_width(png, info));
    const int height = int(png_get_image_height(png, info));
    out.bit_depth = png_get_bit_depth(png, info);
    out.colour_type = png_get_color_type(png, info);
    // PNG stores 16-bit samples big-endian.
    std::vector<uint8_t> row(png_get_rowbytes(png, info));
    out.samples.resize(size_t(width) * size_t(height));
    bool ok = true;
    for (int y = 0; y < height && ok; ++y) {
      ok = detail::readRow(png, row.data());
      for (int x = 0; x < width && out.bit_depth == 16; ++x)
        out.samples[size_t(y) * size_t(width) + size_t(x)] =
            uint16_t((row[2 * size_t(x)] << 8) | row[2 * size_t(x) + 1]);
    }
    if (ok) out.width = width, out.height = height;
  }
  png_destroy_read_struct(&png, &info, nullptr);
  return out;
}

}  // namespace test_support
