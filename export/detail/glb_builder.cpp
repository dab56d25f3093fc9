#include "export/detail/glb_builder.h"

#include <array>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include <fcntl.h>
#include <unistd.h>

#include "export/detail/meshopt_codec.h"
#include "io/detail/write_fully.h"
#include "io/file_writer.h"

namespace planet_export {
namespace {

constexpr uint32_t kGlbMagic = 0x46546C67;   // "glTF"
constexpr uint32_t kChunkJson = 0x4E4F534A;  // "JSON"
constexpr uint32_t kChunkBin = 0x004E4942;   // "BIN\0"
constexpr int kArrayBuffer = 34962;          // bufferView.target
constexpr int kElementArrayBuffer = 34963;

void writeU32(io::FileWriter& out, uint32_t value) {
  const std::array<unsigned char, 4> bytes = {uint8_t(value), uint8_t(value >> 8),
                                              uint8_t(value >> 16), uint8_t(value >> 24)};
  out.write(bytes.data(), bytes.size());
}

size_t padded(size_t bytes) {
  return (bytes + 3) / 4 * 4;
}

[[noreturn]] void spoolFailed(const std::filesystem::path& dir, const char* what, int error) {
  throw std::runtime_error(std::string("cannot ") + what + " the glb's temporary file in " +
                           dir.string() + ": " + std::strerror(error));
}

}  // namespace

GlbBuilder::GlbBuilder(bool compress, const std::filesystem::path& spool_dir,
                       size_t write_buffer_bytes)
    : compress_(compress), spool_dir_(spool_dir), write_buffer_bytes_(write_buffer_bytes) {
#if defined(O_TMPFILE)
  // When it cannot be made (no O_TMPFILE on the file system, a folder that is not there), the
  // bytes stay in memory and write() reports any problem with the folder as before.
  if (!spool_dir.empty())
    spool_fd_ = ::open(spool_dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#endif
}

GlbBuilder::~GlbBuilder() {
  if (spool_fd_ >= 0) ::close(spool_fd_);
}

void GlbBuilder::keep(ViewBytes bytes) {
  if (spool_fd_ < 0) {
    pieces_.push_back(std::move(bytes));
    return;
  }
  int error = 0;
  io::writeFully(spool_fd_, reinterpret_cast<const char*>(bytes.data()), bytes.paddedSize(), error);
  if (error != 0) spoolFailed(spool_dir_, "write", error);
}

int GlbBuilder::addView(std::vector<ViewBytes> parts, int target, int stride, const char* mode,
                        size_t element_bytes) {
  size_t length = 0;
  for (size_t k = 0; k < parts.size(); ++k) {
    if (k + 1 < parts.size() && parts[k].bytes().size() % 4 != 0)
      throw std::logic_error("glb view: a part before the last is not a multiple of 4 bytes");
    length += parts[k].bytes().size();
  }
  Json view;
  if (!compress_) {
    view = {{"buffer", 0}, {"byteOffset", offset_}, {"byteLength", length}};
    offset_ += padded(length);
    for (ViewBytes& part : parts) keep(std::move(part));
  } else {
    // One part is encoded where it is; several are joined first.
    std::vector<uint8_t> joined;
    if (parts.size() > 1) {
      joined.reserve(length);
      for (const ViewBytes& part : parts)
        joined.insert(joined.end(), part.bytes().begin(), part.bytes().end());
    }
    const std::span<const uint8_t> bytes =
        parts.size() == 1 ? parts[0].bytes() : std::span<const uint8_t>(joined);
    // EXT_meshopt_compression: the view keeps its place in the fallback buffer (1), which has
    // no data; the extension points at the encoded bytes in the binary chunk (buffer 0).
    ViewBytes encoded(meshoptEncode(bytes, element_bytes, mode));
    Json ext = {{"buffer", 0},
                {"byteOffset", offset_},
                {"byteLength", encoded.bytes().size()},
                {"byteStride", element_bytes},
                {"count", length / element_bytes},
                {"mode", mode}};
    view = {{"buffer", 1}, {"byteOffset", fallback_offset_}, {"byteLength", length}};
    fallback_offset_ += padded(length);
    offset_ += encoded.paddedSize();
    keep(std::move(encoded));
    view["extensions"]["EXT_meshopt_compression"] = std::move(ext);
  }
  if (stride > 0) view["byteStride"] = stride;
  view["target"] = target;
  views_.push_back(std::move(view));
  return int(views_.size()) - 1;
}

int GlbBuilder::addVertexView(ViewBytes bytes, int stride) {
  return addVertexView(std::vector<ViewBytes>{std::move(bytes)}, stride);
}

int GlbBuilder::addVertexView(std::vector<ViewBytes> parts, int stride) {
  return addView(std::move(parts), kArrayBuffer, stride, "ATTRIBUTES", size_t(stride));
}

int GlbBuilder::addScalarFloatView(ViewBytes bytes, int mantissa_bits) {
  if (!compress_) return addVertexView(std::move(bytes), 4);
  const int view = addVertexView(meshoptFilterExp(bytes.bytes(), mantissa_bits), 4);
  views_[size_t(view)]["extensions"]["EXT_meshopt_compression"]["filter"] = "EXPONENTIAL";
  return view;
}

int GlbBuilder::addIndexView(ViewBytes bytes, Component type) {
  const size_t size = type == Component::kUnsignedShort ? 2 : 4;
  return addView({std::move(bytes)}, kElementArrayBuffer, 0, "TRIANGLES", size);
}

int GlbBuilder::addIndexSequenceView(ViewBytes bytes, Component type) {
  const size_t size = type == Component::kUnsignedShort ? 2 : 4;
  return addView({std::move(bytes)}, kElementArrayBuffer, 0, "INDICES", size);
}

int GlbBuilder::addAccessor(int view, size_t byte_offset, Component type, bool normalized,
                            size_t count, const char* shape, Json min, Json max) {
  Json accessor = {{"bufferView", view}};
  if (byte_offset > 0) accessor["byteOffset"] = byte_offset;
  accessor["componentType"] = int(type);
  if (normalized) accessor["normalized"] = true;
  accessor["count"] = count;
  accessor["type"] = shape;
  if (!min.is_null()) accessor["min"] = std::move(min);
  if (!max.is_null()) accessor["max"] = std::move(max);
  accessors_.push_back(std::move(accessor));
  return int(accessors_.size()) - 1;
}

void GlbBuilder::write(const std::filesystem::path& path, Json gltf) {
  Json buffers = Json::array({Json{{"byteLength", offset_}}});
  if (compress_) {
    buffers.push_back({{"byteLength", fallback_offset_},
                       {"extensions", {{"EXT_meshopt_compression", {{"fallback", true}}}}}});
  }
  gltf["buffers"] = std::move(buffers);
  gltf["bufferViews"] = std::move(views_);
  gltf["accessors"] = std::move(accessors_);
  std::string json_chunk = gltf.dump();
  json_chunk.resize(padded(json_chunk.size()), ' ');  // JSON chunk pads with spaces
  const size_t total = 12 + 8 + json_chunk.size() + 8 + offset_;
  if (total > UINT32_MAX) {
    throw std::runtime_error("cannot write " + path.string() + ": " + std::to_string(total) +
                             " bytes exceed the 4 GiB limit of a GLB file");
  }
  io::FileWriter out(path, io::FileWriter::Create::kTruncate, io::FileWriter::kDirectFrom,
                     write_buffer_bytes_);
  writeU32(out, kGlbMagic);
  writeU32(out, 2);
  writeU32(out, uint32_t(total));
  writeU32(out, uint32_t(json_chunk.size()));
  writeU32(out, kChunkJson);
  out.write(json_chunk);
  writeU32(out, uint32_t(offset_));
  writeU32(out, kChunkBin);
  for (const ViewBytes& piece : pieces_) out.write(piece.data(), piece.paddedSize());
  if (spool_fd_ >= 0) out.copyFrom(spool_fd_, offset_);
  out.close();
}

}  // namespace planet_export
