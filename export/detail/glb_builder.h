#pragma once
// Internal to export/ (included only by .cpp files, which is why it may name nlohmann::json):
// the GLB container shared by the glTF writers. Collects the binary chunk, spooled to a
// temporary file as it grows (or kept as a list of byte arrays), plus the JSON that describes
// it, which the file holds first. Format: glTF 2.0 spec, section 4.4 "Binary glTF Layout";
// with compression, EXT_meshopt_compression.

#include <cmath>
#include <cstdint>
#include <cstring>
#include <deque>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <glm/common.hpp>
#include <glm/vec3.hpp>

#include <nlohmann/json.hpp>

namespace planet_export {

using Json = nlohmann::ordered_json;

// An array's bytes as they are in memory (floats and vectors of floats as glTF stores them).
template <typename T>
std::vector<uint8_t> bytesOf(const std::vector<T>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

// The bytes of one bufferView, owned until they are written, padded to 4 bytes: a byte
// array, or any array of elements whose size is a multiple of 4 moved in whole (its memory
// becomes the view's: no copy, e.g. a group's float positions).
class ViewBytes {
 public:
  ViewBytes(std::vector<uint8_t>&& bytes) : length_(bytes.size()) {  // NOLINT: implicit
    bytes.resize((length_ + 3) / 4 * 4, 0);
    keep(std::move(bytes));
  }
  template <typename T>
  explicit ViewBytes(std::vector<T>&& values) : length_(values.size() * sizeof(T)) {
    static_assert(sizeof(T) % 4 == 0 && std::is_trivially_copyable_v<T>);
    keep(std::move(values));
  }

  // An array's bytes borrowed, not owned (no copy): the caller keeps them alive until the
  // builder's write() has run. Elements whose size is a multiple of 4, as above.
  template <typename T>
  static ViewBytes borrowed(std::span<const T> values) {
    static_assert(sizeof(T) % 4 == 0 && std::is_trivially_copyable_v<T>);
    ViewBytes view;
    view.data_ = reinterpret_cast<const uint8_t*>(values.data());
    view.length_ = values.size_bytes();
    return view;
  }

  std::span<const uint8_t> bytes() const { return {data_, length_}; }  // without the padding
  size_t paddedSize() const { return (length_ + 3) / 4 * 4; }
  const uint8_t* data() const { return data_; }

 private:
  ViewBytes() = default;
  template <typename T>
  void keep(std::vector<T>&& values) {
    auto owned = std::make_shared<std::vector<T>>(std::move(values));
    data_ = reinterpret_cast<const uint8_t*>(owned->data());
    owner_ = std::move(owned);
  }

  std::shared_ptr<const void> owner_;
  const uint8_t* data_ = nullptr;
  size_t length_ = 0;
};

// The exact float bounds of count positions from first, as POSITION's accessor min and max
// (double(float) prints back bit for bit).
inline std::pair<Json, Json> positionBounds(const glm::vec3* first, size_t count) {
  glm::vec3 lo(INFINITY), hi(-INFINITY);
  for (size_t v = 0; v < count; ++v) {
    lo = glm::min(lo, first[v]);
    hi = glm::max(hi, first[v]);
  }
  return {Json{double(lo.x), double(lo.y), double(lo.z)},
          Json{double(hi.x), double(hi.y), double(hi.z)}};
}

// accessor.componentType values (glTF 2.0 spec 3.6.2.2).
enum class Component : int {
  kByte = 5120,
  kUnsignedByte = 5121,
  kShort = 5122,
  kUnsignedShort = 5123,
  kUnsignedInt = 5125,
  kFloat = 5126,
};

class GlbBuilder {
 public:
  // compress: every bufferView is stored with meshopt's codecs (EXT_meshopt_compression,
  // required), its uncompressed bytes only in a fallback buffer that has no data.
  // spool_dir: when given, the binary chunk's bytes go to an unnamed temporary file in that
  // folder (O_TMPFILE) as each view is added, instead of staying in memory until write (the
  // glb writer's peak memory); kept in memory when that file cannot be made.
  // write_buffer_bytes: io::FileWriter's buffer for the file (its default 4 MiB; the views of
  // 64 KiB and more bypass it, so a small buffer only gathers the headers and small views: a
  // tile bake writes thousands of glbs, two at a time).
  explicit GlbBuilder(bool compress = false, const std::filesystem::path& spool_dir = {},
                      size_t write_buffer_bytes = size_t(4) << 20);
  ~GlbBuilder();
  GlbBuilder(const GlbBuilder&) = delete;
  GlbBuilder& operator=(const GlbBuilder&) = delete;

  // Vertex data, `stride` bytes per element (a multiple of 4, <= 256), as one bufferView
  // (target ARRAY_BUFFER). Returns the view index.
  int addVertexView(ViewBytes bytes, int stride);
  // The same from parts laid end to end, every part but the last a multiple of 4 bytes long
  // (e.g. a mesh's array, borrowed, and the few elements that follow it in the file).
  int addVertexView(std::vector<ViewBytes> parts, int stride);
  // A view of float32 scalars; when compressing, through the EXPONENTIAL filter with this many
  // mantissa bits (EXT_meshopt_compression), else stored as they are.
  int addScalarFloatView(ViewBytes bytes, int mantissa_bits);
  // Triangle indices (uint16 or uint32, 3 per triangle, local to whatever vertices the
  // accessors over it use) as one bufferView (target ELEMENT_ARRAY_BUFFER).
  int addIndexView(ViewBytes bytes, Component type);
  // Any other index sequence (e.g. the two ends of each line segment), same target; with
  // compression stored by meshopt's index-sequence codec (mode INDICES).
  int addIndexSequenceView(ViewBytes bytes, Component type);

  // An accessor over `count` elements starting at byte_offset of a view. min/max are written
  // when given (non-null). Returns the accessor index.
  int addAccessor(int view, size_t byte_offset, Component type, bool normalized, size_t count,
                  const char* shape, Json min = nullptr, Json max = nullptr);

  bool compressed() const { return compress_; }

  // Completes `gltf` with buffers, bufferViews and accessors (and the extension lists when
  // compressed) and writes the GLB to path (FileWriter: every write checked). Throws
  // std::runtime_error naming the path on failure or if the file would exceed the 4 GiB limit
  // of the format.
  void write(const std::filesystem::path& path, Json gltf);

 private:
  int addView(std::vector<ViewBytes> parts, int target, int stride, const char* mode,
              size_t element_bytes);
  void keep(ViewBytes bytes);  // to the spool, or into pieces_

  bool compress_ = false;
  Json accessors_ = Json::array();
  Json views_ = Json::array();
  std::deque<ViewBytes> pieces_;  // the binary chunk, in order (when not spooled)
  std::filesystem::path spool_dir_;
  size_t write_buffer_bytes_ = 0;
  int spool_fd_ = -1;  // the binary chunk so far, when spooled
  size_t offset_ = 0;
  size_t fallback_offset_ = 0;  // bytes of the uncompressed (fallback) buffer
};

}  // namespace planet_export
