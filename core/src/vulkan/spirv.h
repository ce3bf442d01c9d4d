// The compute shaders of core/src/vulkan/shaders, compiled by glslc at build time and embedded
// in the library (cmake/embed_spirv.cmake).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace stepformer::vk {

// The SPIR-V words of shader `name` (its file name without .comp); empty when there is none.
std::vector<uint32_t> spirv(const std::string& name);

}  // namespace stepformer::vk
