#pragma once
// Internal to export/ (included only by .cpp files, which is why it may name nlohmann::json):
// the GLB container shared by the glTF writers. Collects the binary chunk as a list of views
// into arrays that live until the file is written, plus the JSON that describes them, so
// nothing is copied before it goes to the file. Format: glTF 2.0 spec, section 4.4 "Binary
// glTF Layout".

#include <cstdint>
#include <deque>
#include <filesystem>
#include <span>
#include <vector>

#include <nlohmann/json.hpp>

namespace planet_export {

using Json = nlohmann::ordered_json;

class GlbBuilder {
 public:
  // Float vertex data, `components` floats per element (1 or 3), as one bufferView (byteStride =
  // element size, target ARRAY_BUFFER). data must outlive write(). Returns the view index.
  int addVertexView(const float* data, size_t count, int components);
  // An accessor over elements [first, first + count) of a view from addVertexView, with exact
  // min/max from the data. Returns the accessor index.
  int addVertexAccessor(int view, size_t first, size_t count);
  // Both of the above for a whole array.
  int addFloatAttribute(const float* data, size_t count, int components) {
    return addVertexAccessor(addVertexView(data, count, components), 0, count);
  }

  // uint32 indices as one bufferView (target ELEMENT_ARRAY_BUFFER); data must outlive write().
  int addIndexView(std::span<const uint32_t> indices);
  // A SCALAR uint32 accessor over indices [first, first + count) of an index view.
  int addIndexAccessor(int view, size_t first, size_t count);
  int addIndices(std::span<const uint32_t> indices) {
    return addIndexAccessor(addIndexView(indices), 0, indices.size());
  }

  // Keeps an array alive until the builder is destroyed; returns its data.
  const float* keep(std::vector<float>&& values);
  const uint32_t* keep(std::vector<uint32_t>&& values);

  Json& accessors() { return accessors_; }
  Json& views() { return views_; }
  size_t binaryLength() const { return offset_; }

  // Completes `gltf` with buffers, bufferViews and accessors and writes the GLB to path
  // (FileWriter: every write checked). Throws std::runtime_error naming the path on failure
  // or if the file would exceed the 4 GiB limit of the format.
  void write(const std::filesystem::path& path, Json gltf);

 private:
  struct View {
    const void* data;
    size_t bytes;
    int components;  // floats per element; 0 for indices
  };
  int addView(const void* data, size_t bytes, int target, int stride, int components);

  Json accessors_ = Json::array();
  Json views_ = Json::array();
  std::vector<View> pieces_;
  size_t offset_ = 0;
  std::deque<std::vector<float>> kept_floats_;
  std::deque<std::vector<uint32_t>> kept_indices_;
};

}  // namespace planet_export
