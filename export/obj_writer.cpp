// planet.obj + planet.mtl writer. Text formatting is the cost of an OBJ file (a 2.6 M vertex
// planet is about half a gigabyte), so lines are formatted with std::to_chars in parallel
// blocks and written in order: the bytes do not depend on the thread count.

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_group.h>

#include "export/colour_ramps.h"
#include "export/detail/decimal_text.h"
#include "export/detail/surface_buffers.h"
#include "export/mesh_export.h"
#include "io/file_writer.h"

namespace planet_export {
namespace {

constexpr size_t kLinesPerBlock = size_t(1) << 14;
constexpr size_t kBlocksPerBatch = 16;
// Longest lines: "v" + 3 floats (<= 1 + 14 chars each) + 3 colours (1 + 6) + "\n" = 68;
// "f" + 3 * " a//a" (<= 1 + 10 + 2 + 10) + "\n" = 71; with putIndexPair's fixed 24-byte copies a
// face line writes at most 84 bytes from its start (the bytes past its end are overwritten by
// the next line or never written out). Formatting buffers hold
// kBlocksPerBatch * kLinesPerBlock * kMaxLineBytes = 24 MiB, twice.
constexpr size_t kMaxLineBytes = 96;

// A formatting buffer allocated once, without std::string's zero fill on every resize.
struct TextBlock {
  std::unique_ptr<char[]> data{new char[kLinesPerBlock * kMaxLineBytes]};
  size_t size = 0;
};

char* put(char* p, std::string_view text) {
  return std::copy(text.begin(), text.end(), p);
}

// Shortest text that reads back as the same float: OBJ positions equal the GLB's exactly.
char* putFloat(char* p, float value) {
  *p++ = ' ';
  return putShortestFloat(p, value);
}

char* putColour(char* p, float value) {
  *p++ = ' ';
  return putUnitFixed4(p, value);
}

// " a//a". The digits are copied as a fixed 24 bytes (one or two vector moves, where a copy
// of their own length is a call to memmove per index); the bytes past them are overwritten by
// what follows or lie beyond the line (kMaxLineBytes leaves room).
char* putIndexPair(char* p, uint64_t index) {
  char digits[24];
  const size_t length = size_t(std::to_chars(digits, digits + sizeof digits, index).ptr - digits);
  *p++ = ' ';
  std::memcpy(p, digits, sizeof digits);
  p += length;
  *p++ = '/';
  *p++ = '/';
  std::memcpy(p, digits, sizeof digits);
  return p + length;
}

// Writes `count` lines made by format(i, buffer) -> end (at most kMaxLineBytes each). A batch
// is formatted in parallel while the one before it is being written (two sets of buffers), so
// the writing (a copy into FileWriter's direct-write blocks, for a big file) overlaps the
// formatting.
template <typename Format>
void writeLines(io::FileWriter& out, size_t count, const Format& format) {
  constexpr size_t kBatchLines = kLinesPerBlock * kBlocksPerBatch;
  std::vector<TextBlock> buffers[2] = {std::vector<TextBlock>(kBlocksPerBatch),
                                       std::vector<TextBlock>(kBlocksPerBatch)};
  tbb::task_group writing;  // after the buffers: destroyed (waited for) first
  int current = 0;
  for (size_t batch_start = 0; batch_start < count; batch_start += kBatchLines) {
    std::vector<TextBlock>& blocks = buffers[current];
    const size_t batch_end = std::min(count, batch_start + kBatchLines);
    const size_t block_count = (batch_end - batch_start + kLinesPerBlock - 1) / kLinesPerBlock;
    tbb::parallel_for(size_t(0), block_count, [&](size_t b) {
      const size_t first = batch_start + b * kLinesPerBlock;
      const size_t last = std::min(batch_end, first + kLinesPerBlock);
      char* p = blocks[b].data.get();
      for (size_t i = first; i < last; ++i) p = format(i, p);
      blocks[b].size = size_t(p - blocks[b].data.get());
    });
    writing.wait();  // the previous batch is out: its buffers are free again
    writing.run([&out, &blocks, block_count] {
      for (size_t b = 0; b < block_count; ++b) out.write(blocks[b].data.get(), blocks[b].size);
    });
    current ^= 1;
  }
  writing.wait();
}

// One object: `o`, `usemtl`, vertices with colours, one normal per vertex, faces whose
// vertex and normal indices are the same (1-based, after `first_index - 1` earlier vertices).
void writeObject(io::FileWriter& out, std::string_view name, const MeshBuffers& mesh,
                 uint64_t first_index) {
  out.write("o " + std::string(name) + "\nusemtl " + std::string(name) + "\n");
  writeLines(out, mesh.positions.size(), [&](size_t v, char* p) {
    *p++ = 'v';
    for (int c = 0; c < 3; ++c) p = putFloat(p, mesh.positions[v][c]);
    const Rgb& colour = mesh.colours[v];
    p = putColour(p, colour.r);
    p = putColour(p, colour.g);
    p = putColour(p, colour.b);
    *p++ = '\n';
    return p;
  });
  writeLines(out, mesh.normals.size(), [&](size_t v, char* p) {
    p = put(p, "vn");
    for (int c = 0; c < 3; ++c) p = putFloat(p, mesh.normals[v][c]);
    *p++ = '\n';
    return p;
  });
  writeLines(out, mesh.indices.size() / 3, [&](size_t f, char* p) {
    *p++ = 'f';
    for (int k = 0; k < 3; ++k) p = putIndexPair(p, first_index + mesh.indices[3 * f + k]);
    *p++ = '\n';
    return p;
  });
}

std::string colourText(Rgb c) {
  std::string text;
  for (float value : {c.r, c.g, c.b}) {
    char buffer[32];
    char* end = putColour(buffer, value);
    text.append(buffer, end);
  }
  return text;
}

}  // namespace

void writeObj(const std::filesystem::path& obj_path, const std::filesystem::path& mtl_path,
              const std::string& mtl_library_name, const PlanetSurface& surface) {
  const PlanetBuffers buffers = buildPlanetBuffers(surface);

  // Land: white diffuse so viewers that honour vertex colours show them unchanged.
  io::FileWriter mtl(mtl_path);
  mtl.write("# planetgen\nnewmtl Land\nKa 0 0 0\nKd 1 1 1\nKs 0 0 0\nd 1\nillum 1\n\n");
  mtl.write("newmtl Ocean\nKa 0 0 0\nKd" + colourText(kOceanColour) +
            "\nKs 0.3 0.3 0.3\nNs 200\nd 0.6\nillum 2\n");
  mtl.close();

  io::FileWriter obj(obj_path);
  obj.write("# planetgen\nmtllib " + mtl_library_name + "\n");
  writeObject(obj, "Land", buffers.land, 1);
  writeObject(obj, "Ocean", buffers.ocean, 1 + uint64_t(buffers.land.positions.size()));
  obj.close();
}

}  // namespace planet_export
