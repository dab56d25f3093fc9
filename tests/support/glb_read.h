#pragma once
// A .glb read back with tinygltf, for the tests that check what the writers wrote.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <tiny_gltf.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "support/support.h"

namespace test_support {

// The model in the file; fails the test (with tinygltf's messages) if it does not load.
inline tinygltf::Model loadGlb(const std::filesystem::path& path) {
  tinygltf::TinyGLTF loader;
  tinygltf::Model model;
  std::string error, warning;
  const bool ok = loader.LoadBinaryFromFile(&model, &error, &warning, path.string());
  INFO("tinygltf error: " << error << " warning: " << warning);
  REQUIRE(ok);
  return model;
}

// The GLB's JSON chunk, parsed independently of tinygltf.
inline nlohmann::json glbJson(const std::filesystem::path& path) {
  const std::string bytes = readFile(path);
  REQUIRE(bytes.size() >= 20);
  uint32_t length = 0;
  std::memcpy(&length, bytes.data() + 12, 4);
  return nlohmann::json::parse(bytes.substr(20, length));
}

// A tightly packed float accessor's values (fails the test for any other component type).
inline std::vector<float> accessorFloats(const tinygltf::Model& model, int accessor_index) {
  const tinygltf::Accessor& accessor = model.accessors[size_t(accessor_index)];
  REQUIRE(accessor.componentType == TINYGLTF_COMPONENT_TYPE_FLOAT);
  const tinygltf::BufferView& view = model.bufferViews[size_t(accessor.bufferView)];
  const size_t components = size_t(tinygltf::GetNumComponentsInType(uint32_t(accessor.type)));
  REQUIRE(view.byteLength >= accessor.count * components * sizeof(float));
  std::vector<float> values(accessor.count * components);
  std::memcpy(
      values.data(),
      model.buffers[size_t(view.buffer)].data.data() + view.byteOffset + accessor.byteOffset,
      values.size() * sizeof(float));
  return values;
}

// Any accessor as floats, normalized integers mapped as glTF 2.0 spec 3.11 says.
inline std::vector<float> floatsOf(const tinygltf::Model& model, int index) {
  const tinygltf::Accessor& a = model.accessors[size_t(index)];
  const tinygltf::BufferView& view = model.bufferViews[size_t(a.bufferView)];
  const size_t components = size_t(tinygltf::GetNumComponentsInType(uint32_t(a.type)));
  const size_t size = size_t(tinygltf::GetComponentSizeInBytes(uint32_t(a.componentType)));
  const size_t stride = view.byteStride > 0 ? view.byteStride : components * size;
  const unsigned char* base =
      model.buffers[size_t(view.buffer)].data.data() + view.byteOffset + a.byteOffset;
  std::vector<float> out;
  for (size_t i = 0; i < a.count; ++i) {
    for (size_t c = 0; c < components; ++c) {
      const unsigned char* p = base + i * stride + c * size;
      float value = 0.0f;
      switch (a.componentType) {
        case TINYGLTF_COMPONENT_TYPE_FLOAT:
          std::memcpy(&value, p, 4);
          break;
        case TINYGLTF_COMPONENT_TYPE_BYTE:
          value = std::max(float(int8_t(*p)) / 127.0f, -1.0f);
          break;
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE:
          value = float(*p) / 255.0f;
          break;
        default:
          FAIL("unexpected component type " << a.componentType);
      }
      REQUIRE((a.normalized || a.componentType == TINYGLTF_COMPONENT_TYPE_FLOAT));
      out.push_back(value);
    }
  }
  return out;
}

// uint16 or uint32 indices, widened (fails the test for any other component type).
inline std::vector<uint32_t> indicesOf(const tinygltf::Model& model, int index) {
  const tinygltf::Accessor& a = model.accessors[size_t(index)];
  const tinygltf::BufferView& view = model.bufferViews[size_t(a.bufferView)];
  const unsigned char* base =
      model.buffers[size_t(view.buffer)].data.data() + view.byteOffset + a.byteOffset;
  std::vector<uint32_t> out(a.count);
  for (size_t i = 0; i < a.count; ++i) {
    if (a.componentType == TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT) {
      uint16_t v;
      std::memcpy(&v, base + 2 * i, 2);
      out[i] = v;
    } else {
      REQUIRE(a.componentType == TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT);
      std::memcpy(&out[i], base + 4 * i, 4);
    }
  }
  return out;
}

}  // namespace test_support
