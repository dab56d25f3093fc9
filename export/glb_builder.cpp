#include "export/glb_builder.h"

#include <algorithm>
#include <array>
#include <limits>
#include <stdexcept>
#include <string>

#include "export/file_writer.h"

namespace planet_export {
namespace {

constexpr uint32_t kGlbMagic = 0x46546C67;   // "glTF"
constexpr uint32_t kChunkJson = 0x4E4F534A;  // "JSON"
constexpr uint32_t kChunkBin = 0x004E4942;   // "BIN\0"
constexpr int kFloat = 5126;                 // accessor.componentType
constexpr int kUnsignedInt = 5125;
constexpr int kArrayBuffer = 34962;  // bufferView.target
constexpr int kElementArrayBuffer = 34963;

void writeU32(FileWriter& out, uint32_t value) {
  const std::array<unsigned char, 4> bytes = {uint8_t(value), uint8_t(value >> 8),
                                              uint8_t(value >> 16), uint8_t(value >> 24)};
  out.write(bytes.data(), bytes.size());
}

}  // namespace

int GlbBuilder::addView(const void* data, size_t bytes, int target, int stride, int components) {
  Json view = {{"buffer", 0}, {"byteOffset", offset_}, {"byteLength", bytes}};
  if (stride > 0) view["byteStride"] = stride;
  view["target"] = target;
  views_.push_back(std::move(view));
  pieces_.push_back(View{data, bytes, components});
  offset_ += bytes;  // every piece is a multiple of 4 bytes, so no padding is needed
  return int(views_.size()) - 1;
}

int GlbBuilder::addVertexView(const float* data, size_t count, int components) {
  const size_t element_bytes = sizeof(float) * size_t(components);
  return addView(data, count * element_bytes, kArrayBuffer, int(element_bytes), components);
}

int GlbBuilder::addVertexAccessor(int view, size_t first, size_t count) {
  const View& piece = pieces_[size_t(view)];
  const size_t components = size_t(piece.components);
  const float* data = static_cast<const float*>(piece.data) + first * components;
  Json min = Json::array(), max = Json::array();
  for (size_t c = 0; c < components; ++c) {
    float lo = std::numeric_limits<float>::infinity();
    float hi = -lo;
    for (size_t i = 0; i < count; ++i) {
      lo = std::min(lo, data[i * components + c]);
      hi = std::max(hi, data[i * components + c]);
    }
    // double(float) is exact and nlohmann prints the shortest round-trip form, so the JSON
    // bounds equal the written values bit for bit.
    min.push_back(double(lo));
    max.push_back(double(hi));
  }
  Json accessor = {{"bufferView", view}};
  if (first > 0) accessor["byteOffset"] = first * components * sizeof(float);
  accessor["componentType"] = kFloat;
  accessor["count"] = count;
  accessor["type"] = components == 1 ? "SCALAR" : "VEC3";
  accessor["min"] = std::move(min);
  accessor["max"] = std::move(max);
  accessors_.push_back(std::move(accessor));
  return int(accessors_.size()) - 1;
}

int GlbBuilder::addIndexView(std::span<const uint32_t> indices) {
  return addView(indices.data(), indices.size_bytes(), kElementArrayBuffer, 0, 0);
}

int GlbBuilder::addIndexAccessor(int view, size_t first, size_t count) {
  Json accessor = {{"bufferView", view}};
  if (first > 0) accessor["byteOffset"] = first * sizeof(uint32_t);
  accessor["componentType"] = kUnsignedInt;
  accessor["count"] = count;
  accessor["type"] = "SCALAR";
  accessors_.push_back(std::move(accessor));
  return int(accessors_.size()) - 1;
}

const float* GlbBuilder::keep(std::vector<float>&& values) {
  return kept_floats_.emplace_back(std::move(values)).data();
}

const uint32_t* GlbBuilder::keep(std::vector<uint32_t>&& values) {
  return kept_indices_.emplace_back(std::move(values)).data();
}

void GlbBuilder::write(const std::filesystem::path& path, Json gltf) {
  gltf["buffers"] = Json::array({Json{{"byteLength", offset_}}});
  gltf["bufferViews"] = std::move(views_);
  gltf["accessors"] = std::move(accessors_);
  std::string json_chunk = gltf.dump();
  json_chunk.resize((json_chunk.size() + 3) / 4 * 4, ' ');  // JSON chunk pads with spaces
  const size_t total = 12 + 8 + json_chunk.size() + 8 + offset_;
  if (total > UINT32_MAX) {
    throw std::runtime_error("cannot write " + path.string() + ": " + std::to_string(total) +
                             " bytes exceed the 4 GiB limit of a GLB file");
  }
  FileWriter out(path);
  writeU32(out, kGlbMagic);
  writeU32(out, 2);
  writeU32(out, uint32_t(total));
  writeU32(out, uint32_t(json_chunk.size()));
  writeU32(out, kChunkJson);
  out.write(json_chunk);
  writeU32(out, uint32_t(offset_));
  writeU32(out, kChunkBin);
  for (const View& piece : pieces_) out.write(piece.data, piece.bytes);
  out.close();
}

}  // namespace planet_export
