#pragma once
// A .glb read back with tinygltf, for the tests that check what the writers wrote.

#include <filesystem>
#include <string>

#include <tiny_gltf.h>
#include <catch2/catch.hpp>

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

}  // namespace test_support
